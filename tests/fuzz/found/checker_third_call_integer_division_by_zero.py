# fusebox fuzz case, seed 17205638988382 (features: scalar-input, reduction, cast, unary, binary, symbolic-shape, reshape, slice, broadcast)
# fuzz-backend: eval
# minimized; failure: reference-rejects: the evaluator refuses (T#_g = ceilDiv(_...): integer ceil division by zero) what the runtime ran (third call: every exte
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int32, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    S3 = fd.define_scalar(None, dtype=DataType.Int)
    T7 = fd.ops.ceilDiv(T0, T1)
    S8 = T0.size(0)
    T9 = fd.ops.reshape(T7, new_shape=[-1, S3, S8])
    S10 = T9.size(1)
    T11 = fd.ops.slice(T9, start_indices=[0, 1, 1], end_indices=[3, S10, 2], strides=[1, 2, 1])
    T13 = fd.ops.round(T11)
    T14 = fd.ops.ge(T13, S2)
    T15 = fd.ops.prod(T14, dims=[1], keepdim=False, dtype=DataType.Float)
    fd.add_output(T15)

inputs = [
    torch.testing.make_tensor((3, 3), dtype=torch.int32, device='cuda:0', low=-9, high=9),
    torch.testing.make_tensor((3,), dtype=torch.int32, device='cuda:0', low=-9, high=9),
    0.25,
    1,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
