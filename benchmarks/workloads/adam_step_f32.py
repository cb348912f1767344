# One Adam step over 16M float parameters (issue 31's in-place workload): the
# parameter and both moments are outputs aliased to their inputs, so the
# kernel writes them in place (reads 4 tensors, writes 3).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T4 = fd.ops.mul(T2, 0.9)
    T5 = fd.ops.mul(T1, 0.1)
    T6 = fd.ops.add(T4, T5)
    T7 = fd.ops.mul(T3, 0.999)
    T8 = fd.ops.mul(T1, T1)
    T9 = fd.ops.mul(T8, 0.001)
    T10 = fd.ops.add(T7, T9)
    T11 = fd.ops.sqrt(T10)
    T12 = fd.ops.add(T11, 1e-08)
    T13 = fd.ops.div(T6, T12)
    T14 = fd.ops.mul(T13, 0.001)
    T15 = fd.ops.sub(T0, T14)
    fd.add_output(T15, alias_input=T0)
    fd.add_output(T6, alias_input=T2)
    fd.add_output(T10, alias_input=T3)

inputs = [
    torch.randn(16777216, device="cuda"),
    torch.randn(16777216, device="cuda"),
    torch.randn(16777216, device="cuda"),
    torch.rand(16777216, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
