# nvFuser-test style: reductions of one [4, 6, 10] tensor over each axis and
# over axis pairs (outer, middle, inner), with keepdim, a sum accumulated in
# double through dtype=, and a sum of an int32 tensor.
# expect-inputs: 2
# expect-outputs: 6
# expect-ops: reduction=6 broadcast=1 binary=1
import torch
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    outer = fd.ops.sum(t0, dims=[0])
    middle = fd.ops.max(t0, dims=[1], keepdim=True)
    inner = fd.ops.min(t0, dims=[2])
    both = fd.ops.sum(t0, dims=[0, 2], dtype=DataType.Double)
    counts = fd.ops.sum(t1, dims=[1])
    centered = fd.ops.sub(t0, middle)
    rest = fd.ops.sum(centered, dims=[1, 2])
    fd.add_output(outer)
    fd.add_output(middle)
    fd.add_output(inner)
    fd.add_output(both)
    fd.add_output(counts)
    fd.add_output(rest)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(4, 6, 10, device="cuda"),
    torch.randint(-5, 6, (4, 6), dtype=torch.int32, device="cuda"),
]

fd.execute(inputs)
