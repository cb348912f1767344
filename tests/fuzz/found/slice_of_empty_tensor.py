# Found by fusebox_fuzz (seed 4294967391, minimized by hand): the reference
# evaluator refuses a slice of an empty intermediate whose start is past 0:
#   error: T3_g = slice(T2_g, 0, 1, 1, 0, 3, 2, 1, 1, 1): asStrided: a view of
#   sizes [0, 2, 1] strides [15, 5, 1] at offset 6 reaches element 5, but the
#   storage holds 0 elements of float
# An empty view reaches no element. The runtime runs the fusion (no_op, after
# remove_empty), so `fusebox run --validate` exits 1 on a valid fusion.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.slice(T0, start_indices=[4, 0, 0], end_indices=[4, 3, 5], strides=[1, 1, 1])
    T2 = fd.ops.neg(T1)
    T3 = fd.ops.slice(T2, start_indices=[0, 1, 1], end_indices=[0, 3, 2], strides=[1, 1, 1])
    fd.add_output(T3)

inputs = [
    torch.randn((4, 3, 5), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
