# Bias + tanh-GELU on 32768x4096 float32 (issue 5 performance workload).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    V2 = T0.shape()
    T3 = fd.ops.broadcast_in_dim(T1, shape=V2, broadcast_dims=[1])
    T4 = fd.ops.add(T0, T3)
    T5 = fd.ops.mul(T4, T4)
    T6 = fd.ops.mul(T5, T4)
    S7 = fd.define_scalar(0.044715, dtype=DataType.Double)
    T8 = fd.ops.mul(T6, S7)
    T9 = fd.ops.add(T4, T8)
    S10 = fd.define_scalar(0.7978845608028654, dtype=DataType.Double)
    T11 = fd.ops.mul(T9, S10)
    T12 = fd.ops.tanh(T11)
    S13 = fd.define_scalar(1.0, dtype=DataType.Double)
    T14 = fd.ops.add(T12, S13)
    T15 = fd.ops.mul(T4, T14)
    S16 = fd.define_scalar(0.5, dtype=DataType.Double)
    T17 = fd.ops.mul(T15, S16)
    fd.add_output(T17)

inputs = [
    torch.randn(32768, 4096, device="cuda"),
    torch.randn(4096, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
