# Issue 8 item 1 (across segments), found by fusebox_fuzz (seed 4294967672,
# minimized). T3 = atanh(T2) is written in place of T2, and T4, a separate
# segment reading T2, must see T2 from before the call. The segment writing
# T2 runs first, so T4 gets atanh's result (`fusebox_fuzz check FILE
# --backend eval`: "output T4 (float): element 0 of 1: got -nan, expected
# 92.0820541381836").
# fuzz-exact: T4
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T3 = fd.ops.atanh(T2)
    T4 = fd.ops.segment_set(T2)
    fd.add_output(T4)
    fd.add_output(T3, alias_input=T2)

inputs = [
    torch.testing.make_tensor((), dtype=torch.float32, device='cuda:0', low=-100, high=100),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
