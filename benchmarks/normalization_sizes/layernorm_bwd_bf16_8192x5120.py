# LayerNorm backward, bfloat16 8192x5120 with float math: benchmarks/workloads/layernorm_bwd_bf16.py
# at another size (an inner-outer persistent kernel: the rows' sums and the
# column sums of weight and bias grads in one cooperative kernel).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    V5 = T0.shape()
    S6 = T0.size(1)
    T7 = fd.ops.cast(T0, dtype=DataType.Float)
    T8 = fd.ops.cast(T1, dtype=DataType.Float)
    T9 = fd.ops.broadcast_in_dim(T2, shape=V5, broadcast_dims=[0])
    T10 = fd.ops.broadcast_in_dim(T3, shape=V5, broadcast_dims=[0])
    T11 = fd.ops.sub(T8, T9)
    T12 = fd.ops.mul(T11, T10)
    T13 = fd.ops.broadcast_in_dim(T4, shape=V5, broadcast_dims=[1])
    T14 = fd.ops.cast(T13, dtype=DataType.Float)
    T15 = fd.ops.mul(T7, T14)
    T16 = fd.ops.sum(T15, dims=[1], keepdim=False, dtype=DataType.Null)
    T17 = fd.ops.mul(T15, T12)
    T18 = fd.ops.sum(T17, dims=[1], keepdim=False, dtype=DataType.Null)
    T19 = fd.ops.broadcast_in_dim(T16, shape=V5, broadcast_dims=[0])
    T20 = fd.ops.broadcast_in_dim(T18, shape=V5, broadcast_dims=[0])
    T21 = fd.ops.mul(T15, S6)
    T22 = fd.ops.sub(T21, T19)
    T23 = fd.ops.mul(T12, T20)
    T24 = fd.ops.sub(T22, T23)
    T25 = fd.ops.div(T10, S6)
    T26 = fd.ops.mul(T25, T24)
    T27 = fd.ops.cast(T26, dtype=DataType.BFloat16)
    T28 = fd.ops.mul(T7, T12)
    T29 = fd.ops.sum(T28, dims=[0], keepdim=False, dtype=DataType.Null)
    T30 = fd.ops.cast(T29, dtype=DataType.BFloat16)
    T31 = fd.ops.sum(T7, dims=[0], keepdim=False, dtype=DataType.Null)
    T32 = fd.ops.cast(T31, dtype=DataType.BFloat16)
    fd.add_output(T27)
    fd.add_output(T30)
    fd.add_output(T32)

inputs = [
    torch.randn(8192, 5120, dtype=torch.bfloat16, device="cuda"),
    torch.randn(8192, 5120, dtype=torch.bfloat16, device="cuda"),
    torch.randn(8192, dtype=torch.float32, device="cuda"),
    torch.rand(8192, dtype=torch.float32, device="cuda"),
    torch.randn(5120, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    out = fd.execute(inputs)
