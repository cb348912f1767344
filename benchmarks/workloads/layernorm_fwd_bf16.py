# LayerNorm forward, bfloat16 16384x4096 with float math (issue 11 performance
# workload): the normalized output plus the mean and rstd the backward saves.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[1], correction=0, keepdim=False)
    S6 = T0.size(0)
    T7 = fd.ops.broadcast_in_dim(T4, shape=[S6, 1], broadcast_dims=[0])
    T8 = fd.ops.broadcast_in_dim(T5, shape=[S6, 1], broadcast_dims=[0])
    S9 = fd.define_scalar(1e-05, dtype=DataType.Double)
    T10 = fd.ops.add(T7, S9)
    T11 = fd.ops.rsqrt(T10)
    V12 = T0.shape()
    T13 = fd.ops.broadcast_in_dim(T8, shape=V12, broadcast_dims=[0, 1])
    T14 = fd.ops.sub(T3, T13)
    T15 = fd.ops.broadcast_in_dim(T11, shape=V12, broadcast_dims=[0, 1])
    T16 = fd.ops.mul(T14, T15)
    T17 = fd.ops.broadcast_in_dim(T1, shape=V12, broadcast_dims=[1])
    T18 = fd.ops.cast(T17, dtype=DataType.Float)
    T19 = fd.ops.mul(T16, T18)
    T20 = fd.ops.broadcast_in_dim(T2, shape=V12, broadcast_dims=[1])
    T21 = fd.ops.cast(T20, dtype=DataType.Float)
    T22 = fd.ops.add(T19, T21)
    T23 = fd.ops.cast(T22, dtype=DataType.BFloat16)
    fd.add_output(T23)
    fd.add_output(T8)
    fd.add_output(T11)

inputs = [
    torch.randn(16384, 4096, dtype=torch.bfloat16, device="cuda"),
    torch.randn(4096, dtype=torch.bfloat16, device="cuda"),
    torch.randn(4096, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    out = fd.execute(inputs)
