# Row sums of a bfloat16 tensor in float (the cast first, as nvFuser
# definitions write it): row_sum_tree (plugins/row_sum_tree) takes the whole
# fusion as one kernel of its own, one block a row.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.sum(T1, dims=[1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((48, 3000), dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
