# Thunder style: RMSNorm backward in bf16, [16, 64], from the saved rstd
# [16, 1]: grad weight (sum over rows) and grad input (a row sum of
# grad * weight * x), cast back to bf16.
# expect-inputs: 4
# expect-outputs: 2
# expect-ops: cast=5 expand=3 broadcast=2 binary=10 reduction=2
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id8(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, 1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.cast(T1, dtype=DataType.Float)
    T6 = fd.ops.cast(T3, dtype=DataType.Float)
    T7 = fd.ops.broadcast_in_dim(T2, shape=[16, 64], broadcast_dims=[0, 1])
    T8 = fd.ops.mul(T5, T7)
    T9 = fd.ops.mul(T4, T8)
    T10 = fd.ops.sum(T9, dims=[0], keepdim=False, dtype=DataType.Null)
    T11 = fd.ops.broadcast_in_dim(T6, shape=[16, 64], broadcast_dims=[1])
    T12 = fd.ops.mul(T4, T11)
    T13 = fd.ops.mul(T12, T5)
    T14 = fd.ops.sum(T13, dims=[1], keepdim=False, dtype=DataType.Null)
    S15 = fd.define_scalar(0.0156250, dtype=DataType.Double)
    T16 = fd.ops.mul(T14, S15)
    T17 = fd.ops.broadcast_in_dim(T16, shape=[16, 64], broadcast_dims=[0])
    T18 = fd.ops.mul(T7, T7)
    T19 = fd.ops.mul(T18, T17)
    T20 = fd.ops.mul(T5, T19)
    T21 = fd.ops.sub(T12, T20)
    T22 = fd.ops.mul(T7, T21)
    T23 = fd.ops.cast(T22, dtype=DataType.BFloat16)
    T24 = fd.ops.cast(T10, dtype=DataType.BFloat16)
    fd.add_output(T23)
    fd.add_output(T24)

with FusionDefinition() as fd:
    nvfuser_fusion_id8(fd)

inputs = [
    torch.randn(16, 64, dtype=torch.bfloat16, device="cuda"),
    torch.randn(16, 64, dtype=torch.bfloat16, device="cuda"),
    torch.testing.make_tensor((16, 1), dtype=torch.float32, device="cuda", low=0.5, high=2.0),
    torch.randn(64, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
