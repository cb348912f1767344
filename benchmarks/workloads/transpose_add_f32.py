# a + b.T over float32 8192x8192 (issue 31's transpose workload): the output
# and `a` run along rows, `b` along columns, so one of them is read or written
# across its innermost dim whatever the kernel's order.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.permute(T1, dims=[1, 0])
    T3 = fd.ops.add(T0, T2)
    fd.add_output(T3)

inputs = [
    torch.randn(8192, 8192, device="cuda"),
    torch.randn(8192, 8192, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
