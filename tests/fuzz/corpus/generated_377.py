# fusebox fuzz case, seed 377 (features: set, broadcast, binary, full, cast, ternary, matmul)
# fuzz-exact: T2 T3 T7 T9 T12 T14
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[6, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    T1 = fd.ops.segment_set(T0)
    T2 = fd.ops.broadcast(T1, is_broadcast_dim=[False, True, True, False])
    T3 = fd.ops.minimum(T1, T0)
    T4 = fd.ops.broadcast_in_dim(T1, shape=[6, 7], broadcast_dims=[0, 1])
    T5 = fd.ops.full(shape=[6, 7], fill_value=-2.0, dtype=DataType.Double)
    T6 = fd.ops.segment_set(T5)
    T7 = fd.ops.cast(T6, dtype=DataType.Bool)
    T8 = fd.ops.where(T7, T5, T5)
    T9 = fd.ops.fmod(T4, 8)
    T10 = fd.ops.lt(T8, 3)
    T11 = fd.ops.le(T10, True)
    T12 = fd.ops.segment_set(T11)
    T13 = fd.ops.linear(T8, T8)
    T14 = fd.ops.cast(T11, dtype=DataType.Half)
    fd.add_output(T7)
    fd.add_output(T2)
    fd.add_output(T13)
    fd.add_output(T3)
    fd.add_output(T9)
    fd.add_output(T14)
    fd.add_output(T12)

inputs = [
    torch.testing.make_tensor((6, 7), dtype=torch.int64, device='cuda:0', low=-5, high=5),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
