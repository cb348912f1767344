# fusebox fuzz case, seed 33582349288556 (features: broadcast, symbolic-shape, slice)
# fuzz-backend: eval
# minimized by hand; failure: runtime-rejects: slice output dim has size 8, expected 9
# fuzz-exact: T3
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.broadcast_in_dim(T0, shape=[-1, 8], broadcast_dims=[0])
    S2 = T0.size(0)
    T3 = fd.ops.slice(T1, start_indices=[0, 0], end_indices=[S2, S2], strides=[1, 1])
    fd.add_output(T3)

inputs = [
    torch.testing.make_tensor((9,), dtype=torch.float32, device='cuda:0', low=-3, high=3),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
