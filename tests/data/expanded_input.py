# An expanded (stride-0) input dim, declared as nvFuser does: contiguity None
# on a symbolic size. T0 is one row of 4 values repeated 3 times.
import torch
from nvfuser import FusionDefinition, DataType

def fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.mul(T0, T1)
    T3 = fd.ops.sum(T2, dims=[0])
    T4 = fd.ops.add(T2, T0)
    fd.add_output(T3)
    fd.add_output(T4)

with FusionDefinition() as fd:
    fusion(fd)

inputs = [
    torch.arange(4, dtype=torch.float32, device="cuda").expand(3, 4),
    torch.ones(3, 4, device="cuda"),
]
fd.execute(inputs)
