# Channels-last batch norm forward (training statistics), bfloat16
# [rows, channels] = 16384x2048 with float math: benchmarks/workloads/
# batchnorm_fwd_bf16.py at another size (mean and variance over dim 0, the
# normalized output, the mean and rstd the backward saves).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4, T5 = fd.ops.var_mean(T3, dims=[0], correction=0, keepdim=False)
    S6 = fd.define_scalar(1e-05, dtype=DataType.Double)
    T7 = fd.ops.add(T4, S6)
    T8 = fd.ops.rsqrt(T7)
    V9 = T0.shape()
    T10 = fd.ops.broadcast_in_dim(T5, shape=V9, broadcast_dims=[1])
    T11 = fd.ops.sub(T3, T10)
    T12 = fd.ops.broadcast_in_dim(T8, shape=V9, broadcast_dims=[1])
    T13 = fd.ops.mul(T11, T12)
    T14 = fd.ops.broadcast_in_dim(T1, shape=V9, broadcast_dims=[1])
    T15 = fd.ops.cast(T14, dtype=DataType.Float)
    T16 = fd.ops.mul(T13, T15)
    T17 = fd.ops.broadcast_in_dim(T2, shape=V9, broadcast_dims=[1])
    T18 = fd.ops.cast(T17, dtype=DataType.Float)
    T19 = fd.ops.add(T16, T18)
    T20 = fd.ops.cast(T19, dtype=DataType.BFloat16)
    fd.add_output(T20)
    fd.add_output(T5)
    fd.add_output(T8)

inputs = [
    torch.randn(16384, 2048, dtype=torch.bfloat16, device="cuda"),
    torch.randn(2048, dtype=torch.bfloat16, device="cuda"),
    torch.randn(2048, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    out = fd.execute(inputs)
