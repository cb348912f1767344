# Float arithmetic with a symbolic scalar input and tensor-tensor operands.
# expect-inputs: 3
# expect-outputs: 2
# expect-ops: binary=11
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    T3 = fd.ops.add(T0, T1)
    T4 = fd.ops.sub(T3, S2)
    T5 = fd.ops.mul(T4, T1)
    T6 = fd.ops.div(T5, S2)
    T7 = fd.ops.truediv(T6, T1)
    T8 = fd.ops.fmod(T7, S2)
    T9 = fd.ops.remainder(T8, T1)
    T10 = fd.ops.pow(T9, S2)
    T11 = fd.ops.atan2(T10, T0)
    T12 = fd.ops.maximum(T11, T0)
    T13 = fd.ops.minimum(T12, T1)
    fd.add_output(T13)
    fd.add_output(T3)

inputs = [
    torch.randn(4, 6, device="cuda"),
    torch.rand(4, 6, device="cuda"),
    2.5,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(3):
    out = fd.execute(inputs)
