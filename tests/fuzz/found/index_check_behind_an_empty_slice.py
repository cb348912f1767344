# fusebox fuzz case, seed 33238751905227 (features: symbolic-shape, indexing, pad, slice, squeeze, expand)
# fuzz-backend: eval
# minimized; failure: reference-rejects: the evaluator refuses (case.py:#:#: T#_g = scatter(_...): scatter: index -# (at [_] of T#_g) is out of range for dim # o
# fuzz-exact: T8
# fuzz-disable-passes: consecutive_cast
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int32, is_cpu=False)
    S4 = T0.size(1)
    T5 = fd.ops.iota(S4, 5, -1, dtype=DataType.Int)
    T6 = fd.ops.scatter(T3, T5, T3, dim=0)
    T7 = fd.ops.pad(T6, [1, 3], 8)
    T8 = fd.ops.slice(T7, start_indices=[-2], end_indices=[9], strides=[1])
    fd.add_output(T8)

inputs = [
    torch.randn((1, 6), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((6,), dtype=torch.int32, device='cuda:0', low=-3, high=3),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
