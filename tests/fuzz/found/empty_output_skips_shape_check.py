# Found by fusebox_fuzz's third call (every extent grown by one; seed
# 4294968943, minimized, then by hand). With T0 of size [17, 5], T2 is [17, 4]
# and ne(T0, T3) has operands of different sizes, which the evaluator refuses
# ("operand 1 (T3_g) dim 1 has size 4, expected 5 like operand 0 (T0_g)").
# The output is empty (a slice to 0 rows), so remove_empty drops the ops and
# the runtime returns bool[0, 16] without noticing that the inputs do not fit
# the fusion. Low severity (the answer is empty either way), but the
# evaluator and the runtime disagree on what is an error.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    S1 = T0.size(0)
    T2 = fd.ops.slice(T0, start_indices=[0, 0], end_indices=[S1, 4], strides=[1, 1])
    T3 = fd.ops.neg(T2)
    T4 = fd.ops.ne(T0, T3)
    T5 = fd.ops.permute(T4, dims=[1, 0])
    T6 = fd.ops.slice(T5, start_indices=[0, 0], end_indices=[0, 16], strides=[1, 1])
    fd.add_output(T6)

inputs = [
    torch.randn((17, 5), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
