# fusebox fuzz case, seed 33195802231364 (features: strided-input, reshape, reduction, unary, cast, permute, binary, scan, scalar-ops, pad, ternary, expand, set, broadcast, masked)
# fuzz-backend: host
# minimized; failure: exact-mismatch (float)
# fuzz-exact: T10 T13
# fuzz-disable-passes: remove_bcast_squeeze consecutive_cast allocation_order_inference
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T10 = fd.ops.cummax(T2, dim=0)
    T13 = fd.ops.pad(T10, [1, -1], -2.0)
    fd.add_output(T13)

inputs = [
    torch.testing.make_tensor((3,), dtype=torch.float32, device='cuda:0', low=-100, high=100).as_strided((3,), (1,), 0),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
