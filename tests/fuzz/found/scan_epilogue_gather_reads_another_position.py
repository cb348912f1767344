# fusebox fuzz case, seed 33277406609418 (features: strided-input, scalar-input, scan, indexing, binary, squeeze, unary)
# fuzz-backend: host
# minimized; failure: exact-mismatch (bool)
# fuzz-exact: T7 T9
# fuzz-disable-passes: consecutive_cast allocation_order_inference
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T6 = fd.ops.cummin(T3, dim=0)
    T7 = fd.ops.iota(2, 1, -1, dtype=DataType.Int)
    T8 = fd.ops.gather(T6, T7, dim=0)
    T9 = fd.ops.lt(T6, T8)
    fd.add_output(T9)

inputs = [
    torch.randn((2,), dtype=torch.float32, device='cuda:0').as_strided((2,), (1,), 0),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
