# Thunder style: RMSNorm forward of bf16 activations [8, 64] with a bf16
# weight, computed in float and cast back; the rsqrt statistic is a second
# output for the backward.
# expect-inputs: 2
# expect-outputs: 2
# expect-ops: cast=3 binary=5 reduction=1 broadcast=2 expand=3 unary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id3(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.mul(T2, T2)
    T4 = fd.ops.sum(T3, dims=[1], keepdim=False, dtype=DataType.Null)
    T5 = fd.ops.broadcast_in_dim(T4, shape=[8, 1], broadcast_dims=[0])
    S6 = fd.define_scalar(64.0000, dtype=DataType.Double)
    T7 = fd.ops.div(T5, S6)
    S8 = fd.define_scalar(1.00000e-06, dtype=DataType.Double)
    T9 = fd.ops.add(T7, S8)
    T10 = fd.ops.rsqrt(T9)
    T11 = fd.ops.broadcast_in_dim(T10, shape=[8, 64], broadcast_dims=[0, 1])
    T12 = fd.ops.mul(T2, T11)
    T13 = fd.ops.broadcast_in_dim(T1, shape=[8, 64], broadcast_dims=[1])
    T14 = fd.ops.cast(T13, dtype=DataType.Float)
    T15 = fd.ops.mul(T12, T14)
    T16 = fd.ops.cast(T15, dtype=DataType.BFloat16)
    fd.add_output(T16)
    fd.add_output(T10)

with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

inputs = [
    torch.randn(8, 64, dtype=torch.bfloat16, device="cuda"),
    torch.randn(64, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
