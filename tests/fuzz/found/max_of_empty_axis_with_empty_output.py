# fusebox fuzz case, seed 4307852197962 (features: size0, nonfinite, binary, cast, slice, reduction, variance, reshape, broadcast, output-stride-order)
# fuzz-backend: eval
# minimized; failure: reference-rejects: the evaluator refuses (T#_g = max(T#_g): max of an empty set: dim # of T#_g has size # (max and min need at least one el
# fuzz-exact: T4
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Half, is_cpu=False)
    T3 = fd.ops.slice(T0, start_indices=[0, 0, -1], end_indices=[0, 3, 8], strides=[1, 1, 1])
    T4 = fd.ops.max(T3, dims=[-1], keepdim=False)
    fd.add_output(T4)

inputs = [
    torch.full((0, 3, 8), float('nan'), dtype=torch.float16, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
