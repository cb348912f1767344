# fusebox fuzz case, seed 610 (features: variance, binary)
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True], dtype=DataType.Float, is_cpu=False)
    T1, T2, T3 = fd.ops.welford(T0, dims=[1])
    T4 = fd.ops.maximum(T1, T0)
    T5 = fd.ops.mul(T3, T3)
    T6 = fd.ops.maximum(T4, T5)
    fd.add_output(T6)
    fd.add_output(T1)
    fd.add_output(T2)

inputs = [
    torch.ones((3, 1, 16), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
