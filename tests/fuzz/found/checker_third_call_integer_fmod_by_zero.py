# fusebox fuzz case, seed 47244640256431 (features: scalar-input, broadcast, reshape, cast, squeeze, binary, expand, squeeze-expanded, size0, symbolic-shape, pad)
# fuzz-backend: eval
# minimized; failure: reference-rejects: the evaluator refuses (T#_g = fmod(_...): integer fmod by zero) what the runtime ran (third call: every extent above # g
# fuzz-exact: T12 T18
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int, is_cpu=False)
    T3 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int32, is_cpu=False)
    T5 = fd.ops.broadcast(T3, is_broadcast_dim=[True, True, True, True])
    T6 = fd.ops.reshape(T5, new_shape=[1, 1, -1])
    T7 = fd.ops.cast(T3, dtype=DataType.Bool)
    T8 = fd.ops.squeeze(T6, dims=[0], squeeze_expanded=True)
    T9 = fd.ops.reshape(T8, new_shape=[-1])
    T10 = fd.ops.atan2(T9, T7)
    T11 = fd.ops.broadcast_in_dim(T10, shape=[5, 2], broadcast_dims=[1])
    T12 = fd.ops.expand(T8, shape=[3, 2])
    T13 = fd.ops.maximum(T12, 3)
    T14 = fd.ops.squeeze(T13, dims=[0, 1], squeeze_expanded=True)
    T15 = fd.ops.fmod(T14, T8)
    T16 = fd.ops.broadcast_in_dim(T15, shape=[0, 0], broadcast_dims=[0, 1])
    S17 = T11.size(1)
    T18 = fd.ops.broadcast_in_dim(T16, shape=[S17, -1, 0, 5], broadcast_dims=[1, 2])
    fd.add_output(T18)

inputs = [
    torch.testing.make_tensor((), dtype=torch.float32, device='cuda:0', low=-5, high=5),
    torch.randn((), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((), dtype=torch.int64, device='cuda:0', low=-2, high=2),
    torch.testing.make_tensor((), dtype=torch.int32, device='cuda:0', low=-9, high=9),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
