# A running sum along the rows of a float32 [16384, 4096] tensor, scaled
# after: one block-scan kernel (the scan scheduler). torch_indexing.py's
# cumsum_rows_f32 is the same math.
import torch
from nvfuser import FusionDefinition, DataType

def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.cumsum(T0, dim=1)
    S2 = fd.define_scalar(0.5, dtype=DataType.Double)
    T3 = fd.ops.mul(T1, S2)
    fd.add_output(T3)

with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(16384, 4096, device='cuda'),
]
fd.execute(inputs)
