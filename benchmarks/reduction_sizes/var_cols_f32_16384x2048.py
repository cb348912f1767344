# variance over dim 0 of float32 16384x2048 (Welford states combined over rows and blocks).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.var(T0, dims=[0], correction=1, keepdim=False)
    fd.add_output(T1)

inputs = [
    torch.randn(16384, 2048, dtype=torch.float32, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
