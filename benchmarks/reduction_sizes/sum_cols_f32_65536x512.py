# sum over dim 0 of float32 65536x512: long columns, few of them (split over blocks).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
    fd.add_output(T1)

inputs = [
    torch.randn(65536, 512, dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
