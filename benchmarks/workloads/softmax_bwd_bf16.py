# Softmax backward over the last dim, bfloat16 16384x4096 with float math
# (issue 11 performance workload): dx = y * (dy - sum(dy * y, 1)).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.mul(T2, T3)
    T5 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
    S6 = T0.size(0)
    T7 = fd.ops.broadcast_in_dim(T5, shape=[S6, 1], broadcast_dims=[0])
    V8 = T0.shape()
    T9 = fd.ops.broadcast_in_dim(T7, shape=V8, broadcast_dims=[0, 1])
    T10 = fd.ops.sub(T2, T9)
    T11 = fd.ops.mul(T3, T10)
    T12 = fd.ops.cast(T11, dtype=DataType.BFloat16)
    fd.add_output(T12)

inputs = [
    torch.randn(16384, 4096, dtype=torch.bfloat16, device="cuda"),
    torch.rand(16384, 4096, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    out = fd.execute(inputs)
