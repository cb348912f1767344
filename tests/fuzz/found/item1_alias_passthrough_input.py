# Issue 8 item 1, found by fusebox_fuzz (seed 4294967651, minimized). T0 is an
# output as it is (a pass-through) and also the target of T13's in-place
# write. The pass-through must be T0's value before the call; the runtime
# returns the input itself, which then holds T13 (`fusebox_fuzz check FILE
# --backend eval`: "output T0 (float): element 0 of 1: got 0, expected
# -2.531599998474121").
# fuzz-exact: T13 T0
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T3 = fd.ops.logical_not(T1)
    T13 = fd.ops.cast(T3, dtype=DataType.Float)
    fd.add_output(T0)
    fd.add_output(T13, alias_input=T0)

inputs = [
    torch.randn((), dtype=torch.float32, device='cuda:0'),
    torch.testing.make_tensor((), dtype=torch.float32, device='cuda:0', low=-2, high=2),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
