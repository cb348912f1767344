# Rotary position embedding (RoPE) on the query of one attention layer, as a
# Thunder-generated nvFuser definition writes it: split the head dim into
# halves with slice, rotate (-x2, x1) with neg + cat, then q * cos + rot * sin
# computed in float and cast back to bfloat16. examples/rope.py at 8x32x4096x128
# (issue 13's size; torch_pointwise.py's rope_bf16 is the same math).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[8, 32, 4096, 128], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[4096, 128], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[4096, 128], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T3 = fd.ops.slice(T0, start_indices=[0, 0, 0, 0], end_indices=[8, 32, 4096, 64], strides=[1, 1, 1, 1])
    T4 = fd.ops.slice(T0, start_indices=[0, 0, 0, 64], end_indices=[8, 32, 4096, 128], strides=[1, 1, 1, 1])
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.neg(T5)
    T7 = fd.ops.cast(T6, dtype=DataType.BFloat16)
    T8 = fd.ops.cat([T7, T3], dim=-1)
    T9 = fd.ops.broadcast_in_dim(T1, shape=[8, 32, 4096, 128], broadcast_dims=[2, 3])
    T10 = fd.ops.cast(T0, dtype=DataType.Float)
    T11 = fd.ops.cast(T9, dtype=DataType.Float)
    T12 = fd.ops.mul(T10, T11)
    T13 = fd.ops.broadcast_in_dim(T2, shape=[8, 32, 4096, 128], broadcast_dims=[2, 3])
    T14 = fd.ops.cast(T8, dtype=DataType.Float)
    T15 = fd.ops.cast(T13, dtype=DataType.Float)
    T16 = fd.ops.mul(T14, T15)
    T17 = fd.ops.add(T12, T16)
    T18 = fd.ops.cast(T17, dtype=DataType.BFloat16)
    fd.add_output(T18)

with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

inputs = [
    torch.testing.make_tensor((8, 32, 4096, 128), dtype=torch.bfloat16, device='cuda:0'),
    torch.testing.make_tensor((4096, 128), dtype=torch.bfloat16, device='cuda:0', low=-1, high=1),
    torch.testing.make_tensor((4096, 128), dtype=torch.bfloat16, device='cuda:0', low=-1, high=1),
]
fd.execute(inputs)
