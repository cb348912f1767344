# fusebox fuzz case, seed 21487721382083 (features: symbolic-shape, slice, cast, binary, pad, permute, rand, reduction, ternary, scalar-ops)
# fuzz-backend: eval
# minimized; failure: reference-rejects: the evaluator refuses (T#_g = pow(_...): output T#_g dim # has size #, expected # (extent i#)) what the runtime ran (thi
# fuzz-exact: T3 T5 T14
# fuzz-tolerance: T12=BFloat16
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Double, is_cpu=False)
    S2 = T0.size(0)
    T3 = fd.ops.slice(T0, start_indices=[2, 2, 0], end_indices=[S2, 2, 3], strides=[1, 2, 1])
    T4 = fd.ops.cast(T3, dtype=DataType.Int32)
    T5 = fd.ops.bitwise_and(T4, T4)
    T7 = fd.ops.permute(T5, dims=[1, 0, 2])
    T13 = fd.ops.pow(T4, T7)
    T14 = fd.ops.sum(T13, dims=[2], keepdim=True, dtype=DataType.Null)
    fd.add_output(T14)

inputs = [
    torch.testing.make_tensor((2, 5, 3), dtype=torch.float64, device='cuda:0', low=-5, high=5),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
