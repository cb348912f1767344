# fusebox fuzz case, seed 4299262263371 (features: variance, reduction, symbolic-shape, slice, float-scalar, binary, unary, size0, broadcast, ternary, cast, scalar-ops)
# fuzz-backend: eval
# minimized; failure: reference-rejects: the evaluator refuses (T#_g = expand(_...): output T#_g dim # has size #, expected # (extent i#)) what the runtime ran (
# fuzz-exact: T7
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    S3 = T0.size(0)
    T4 = fd.ops.slice(T0, start_indices=[4, 3], end_indices=[S3, 3], strides=[1, 1])
    T6 = fd.ops.isinf(T4)
    T7 = fd.ops.broadcast_in_dim(T6, shape=[0, 0], broadcast_dims=[0, 1])
    fd.add_output(T7)

inputs = [
    torch.testing.make_tensor((4, 8), dtype=torch.float16, device='cuda:0', low=-100, high=100),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
