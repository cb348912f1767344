# Issue 8 item 2 (through expand, which broadcast_in_dim is made of), found by
# fusebox_fuzz's third call (every extent grown by one; seed 4294967306,
# minimized). expand(T0, shape=[2, 16, 1]) on a T0 of size [1, 17, 1] returns
# float[2, 17, 1] (a no_op view); the evaluator refuses it ("cannot expand dim
# 1 of T0_g from size 17 to 16: only size-1 dims expand"), so only
# `--validate` notices. It must be a run-time error naming T0.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1, -1], contiguity=[None, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.expand(T0, shape=[2, 16, 1])
    fd.add_output(T1)

inputs = [
    torch.testing.make_tensor((1, 17, 1), dtype=torch.float32, device='cuda:0', low=-5, high=5),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
