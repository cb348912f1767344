# nvFuser-test style: slices, pads and cats: a strided slice of the middle
# columns, zero and constant padding, a cat of three pieces along dim 0 and
# of two along the last dim.
# expect-inputs: 2
# expect-outputs: 2
# expect-ops: slice=2 pad=2 cat=2 binary=1
import torch
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    cols = fd.ops.slice(t0, start_indices=[0, 2], end_indices=[6, 8], strides=[1, 2])
    rows = fd.ops.slice(t0, start_indices=[1, 0], end_indices=[3, 10])
    cols_p = fd.ops.pad(cols, [1, 0, 0, 2])
    t1_p = fd.ops.pad(t1, [0, 0, 1, 1], 2.5)
    stacked = fd.ops.cat([rows, t1, t1_p], dim=0)
    wide = fd.ops.cat([stacked, cols_p], dim=1)
    out = fd.ops.mul(wide, 0.5)
    fd.add_output(out)
    fd.add_output(cols_p)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(6, 10, device="cuda"),
    torch.randn(2, 10, device="cuda"),
]

fd.execute(inputs)
