# Found by fusebox_fuzz (seed 858993464350, second call; minimized by hand).
# sub(float, int64) computes in float: PyTorch (and nvFuser) cast the int64
# operand to float first, so T3 is 0. The generated kernel does that (host: 0);
# the reference evaluator subtracts the exact int64 value in double and gets
# the float rounding error of T0 (1506741376 here), so `--validate` fails on
# a correct kernel. The same family as issue 8 item 15 (operands must be cast
# to the op's computation dtype), for tensor operands.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    T1 = fd.ops.full(shape=[], fill_value=-0.125, dtype=DataType.Float)
    T2 = fd.ops.maximum(T1, T0)
    T3 = fd.ops.sub(T2, T0)
    fd.add_output(T3)

inputs = [
    torch.full((4,), 123456789012345678, dtype=torch.int64, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
