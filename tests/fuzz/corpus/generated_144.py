# fusebox fuzz case, seed 144 (features: strided-input, scalar-input, scalar-ops, unary, binary, cat, reshape, slice, symbolic-shape, broadcast, output-stride-order)
# fuzz-exact: T10
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[False], dtype=DataType.Float, is_cpu=False)
    S4 = fd.define_scalar(None, dtype=DataType.Bool)
    S5 = fd.define_scalar(None, dtype=DataType.Double)
    S6 = fd.ops.mul(S4, 7)
    T7 = fd.ops.lgamma(T2)
    T8 = fd.ops.truediv(T1, T0)
    T9 = fd.ops.cat([T7, T8, T3], dim=0)
    T10 = fd.ops.maximum(T0, T8)
    T11 = fd.ops.reshape(T9, new_shape=[48])
    T12 = fd.ops.atanh(T2)
    T13 = fd.ops.slice(T12, start_indices=[3], end_indices=[12], strides=[1])
    S14 = T13.size(0)
    T15 = fd.ops.broadcast_in_dim(T13, shape=[5, S14, 1], broadcast_dims=[1])
    T16 = fd.ops.reshape(T15, new_shape=[45, 1])
    fd.add_output(T10)
    fd.add_output(T16, stride_order=[0, 1])
    fd.add_output(T11)

inputs = [
    torch.testing.make_tensor((16,), dtype=torch.float32, device='cuda:0', low=-5, high=5),
    torch.testing.make_tensor((), dtype=torch.float32, device='cuda:0', low=-2, high=2),
    torch.testing.make_tensor((16,), dtype=torch.int64, device='cuda:0', low=-5, high=5),
    torch.randn((31,), dtype=torch.float32, device='cuda:0').as_strided((16,), (2,), 0),
    False,
    0.25,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
