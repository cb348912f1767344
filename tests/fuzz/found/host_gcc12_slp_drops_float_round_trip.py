# fusebox fuzz case, seed 17184164151726 (features: large, strided-input, reduction, cast, cat, broadcast, alias)
# fuzz-backend: host
# minimized; failure: exact-mismatch (double)
# fuzz-exact: T6
# fuzz-disable-passes: remove_empty allocation_order_inference
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T6 = fd.ops.cast(T2, dtype=DataType.Double)
    fd.add_output(T6, alias_input=T0)

inputs = [
    torch.testing.make_tensor((133,), dtype=torch.float64, device='cuda:0', low=-3, high=3).as_strided((129,), (1,), 4),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
