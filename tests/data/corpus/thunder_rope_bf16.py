# Thunder style: partial rotary embedding (rotary on the first half of each
# head dim, the rest passed through) of bf16 queries [1, 8, 32] viewed as
# [1, 2 heads, 8, 16]: slices, neg, cat, cos/sin broadcasts, a final cat.
# expect-inputs: 3
# expect-outputs: 1
# expect-ops: reshape=1 permute=1 slice=4 cast=6 unary=1 cat=2 broadcast=2 expand=2 binary=3
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id30(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1, -1], contiguity=[None, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T3 = fd.ops.reshape(T0, new_shape=[1, 8, 2, 16])
    T4 = fd.ops.permute(T3, dims=[0, 2, 1, 3])
    T5 = fd.ops.slice(T4, start_indices=[0, 0, 0, 0], end_indices=[1, 2, 8, 8], strides=[1, 1, 1, 1], manual_normalization=0)
    T6 = fd.ops.slice(T4, start_indices=[0, 0, 0, 8], end_indices=[1, 2, 8, 16], strides=[1, 1, 1, 1], manual_normalization=0)
    T7 = fd.ops.slice(T5, start_indices=[0, 0, 0, 0], end_indices=[1, 2, 8, 4], strides=[1, 1, 1, 1], manual_normalization=0)
    T8 = fd.ops.slice(T5, start_indices=[0, 0, 0, 4], end_indices=[1, 2, 8, 8], strides=[1, 1, 1, 1], manual_normalization=0)
    T9 = fd.ops.cast(T8, dtype=DataType.Float)
    T10 = fd.ops.neg(T9)
    T11 = fd.ops.cast(T7, dtype=DataType.Float)
    T12 = fd.ops.cat([T10, T11], dim=-1, manual_padding=0)
    T13 = fd.ops.broadcast_in_dim(T1, shape=[1, 2, 8, 8], broadcast_dims=[2, 3])
    T14 = fd.ops.cast(T13, dtype=DataType.Float)
    T15 = fd.ops.cast(T5, dtype=DataType.Float)
    T16 = fd.ops.mul(T15, T14)
    T17 = fd.ops.broadcast_in_dim(T2, shape=[1, 2, 8, 8], broadcast_dims=[2, 3])
    T18 = fd.ops.cast(T17, dtype=DataType.Float)
    T19 = fd.ops.mul(T12, T18)
    T20 = fd.ops.add(T16, T19)
    T21 = fd.ops.cast(T20, dtype=DataType.BFloat16)
    T22 = fd.ops.cat([T21, T6], dim=-1, manual_padding=0)
    fd.add_output(T22)

with FusionDefinition() as fd:
    nvfuser_fusion_id30(fd)

inputs = [
    torch.randn(1, 8, 32, dtype=torch.bfloat16, device="cuda"),
    torch.rand(8, 8, dtype=torch.bfloat16, device="cuda"),
    torch.rand(8, 8, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
