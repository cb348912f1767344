# fusebox fuzz case, seed 4294967296995 (features: scalar-input, size0, broadcast, binary, unary, ternary, cast, slice, iota, variance, squeeze-expanded, squeeze, alias, output-stride-order)
# fuzz-backend: eval
# minimized; failure: runtime-rejects: T#_g = squeeze(T#_g): dim # of T#_g (size #) cannot be squeezed: only size-# and broadcast dims can
# fuzz-exact: T6 T19
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.BFloat16, is_cpu=False)
    T3 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T5 = fd.ops.broadcast_in_dim(T3, shape=[4, 0, 5], broadcast_dims=[])
    T6 = fd.ops.lt(T3, T5)
    T9 = fd.ops.where(T6, T1, T1)
    T16, T17, T18 = fd.ops.welford(T9, dims=[-2])
    T19 = fd.ops.squeeze(T18, dims=[-2, -1], squeeze_expanded=True)
    fd.add_output(T19)

inputs = [
    torch.testing.make_tensor((), dtype=torch.bfloat16, device='cuda:0', low=-5, high=5),
    torch.testing.make_tensor((), dtype=torch.float32, device='cuda:0', low=-5, high=5),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
