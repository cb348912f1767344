# RMSNorm forward, bfloat16 16384x4096 with float math (issue 11 performance
# workload): the normalized output plus the rstd the backward saves.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.mul(T2, T2)
    T4 = fd.ops.sum(T3, dims=[1], keepdim=False, dtype=DataType.Null)
    S5 = T0.size(0)
    T6 = fd.ops.broadcast_in_dim(T4, shape=[S5, 1], broadcast_dims=[0])
    S7 = T0.size(1)
    T8 = fd.ops.div(T6, S7)
    S9 = fd.define_scalar(1e-06, dtype=DataType.Double)
    T10 = fd.ops.add(T8, S9)
    T11 = fd.ops.rsqrt(T10)
    V12 = T0.shape()
    T13 = fd.ops.broadcast_in_dim(T11, shape=V12, broadcast_dims=[0, 1])
    T14 = fd.ops.mul(T2, T13)
    T15 = fd.ops.broadcast_in_dim(T1, shape=V12, broadcast_dims=[1])
    T16 = fd.ops.cast(T15, dtype=DataType.Float)
    T17 = fd.ops.mul(T14, T16)
    T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)
    fd.add_output(T18)
    fd.add_output(T11)

inputs = [
    torch.randn(16384, 4096, dtype=torch.bfloat16, device="cuda"),
    torch.randn(4096, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    out = fd.execute(inputs)
