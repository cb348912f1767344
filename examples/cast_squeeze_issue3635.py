# nvFuser issue 3635: a broadcast and a squeeze of the same dim, kept apart by an
# up-cast; the result is cast back down. remove_bcast_squeeze moves the cast out
# so the pair cancels, then consecutive_cast folds bf16 -> float -> bf16:
#   fusebox print examples/cast_squeeze_issue3635.py --print-after changed
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.ops.broadcast(T0, is_broadcast_dim=[True, False, True, False, False])
    T2 = fd.ops.cast(T1, dtype=DataType.Float)
    T3 = fd.ops.squeeze(T2, dims=[0, 2])
    T4 = fd.ops.cast(T3, dtype=DataType.BFloat16)
    fd.add_output(T4)

inputs = [
    torch.randn(8, 64, 32, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
