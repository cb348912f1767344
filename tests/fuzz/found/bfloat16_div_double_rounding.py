# fusebox fuzz case, seed 4316442132810 (features: unary, binary, float-scalar, permute, cast, alias)
# fuzz-backend: host
# minimized; failure: exact-mismatch (bfloat16)
# fuzz-exact: T6
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[5, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T6 = fd.ops.div(T0, -0.3)
    fd.add_output(T6)

inputs = [
    torch.testing.make_tensor((5, 16), dtype=torch.bfloat16, device='cuda:0', low=-100, high=100),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
