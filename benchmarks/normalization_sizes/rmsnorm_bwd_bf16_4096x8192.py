# RMSNorm backward, bfloat16 4096x8192 with float math: benchmarks/workloads/rmsnorm_bwd_bf16.py
# at another size (an inner-outer persistent kernel: the rows' sums and the
# column sums of the weight grad in one cooperative kernel).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    V4 = T0.shape()
    S5 = T0.size(1)
    T6 = fd.ops.cast(T0, dtype=DataType.Float)
    T7 = fd.ops.cast(T1, dtype=DataType.Float)
    T8 = fd.ops.broadcast_in_dim(T2, shape=V4, broadcast_dims=[0])
    T9 = fd.ops.mul(T7, T8)
    T10 = fd.ops.broadcast_in_dim(T3, shape=V4, broadcast_dims=[1])
    T11 = fd.ops.cast(T10, dtype=DataType.Float)
    T12 = fd.ops.mul(T6, T11)
    T13 = fd.ops.mul(T12, T9)
    T14 = fd.ops.sum(T13, dims=[1], keepdim=False, dtype=DataType.Null)
    T15 = fd.ops.broadcast_in_dim(T14, shape=V4, broadcast_dims=[0])
    T16 = fd.ops.div(T15, S5)
    T17 = fd.ops.mul(T9, T16)
    T18 = fd.ops.sub(T12, T17)
    T19 = fd.ops.mul(T8, T18)
    T20 = fd.ops.cast(T19, dtype=DataType.BFloat16)
    T21 = fd.ops.mul(T6, T9)
    T22 = fd.ops.sum(T21, dims=[0], keepdim=False, dtype=DataType.Null)
    T23 = fd.ops.cast(T22, dtype=DataType.BFloat16)
    fd.add_output(T20)
    fd.add_output(T23)

inputs = [
    torch.randn(4096, 8192, dtype=torch.bfloat16, device="cuda"),
    torch.randn(4096, 8192, dtype=torch.bfloat16, device="cuda"),
    torch.rand(4096, dtype=torch.float32, device="cuda"),
    torch.randn(8192, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    out = fd.execute(inputs)
