# Issue 8 item 13, found by fusebox_fuzz (seed 429496734730, minimized). The
# pointwise kernel's output T3 (a cast of an expanded broadcast) comes back
# with a stride-0 dim, and the no_op segment reading it was planned for a
# dense input:
#   no_op plan for T5_g was made for input 0 of sizes [7, 2] strides [2, 1],
#   but got bool[7, 2]{strides 0, 1}
# (an internal error: exit 2 from `fusebox run --backend host`).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T1 = fd.ops.iota(2, 0.0, 3.0, dtype=DataType.Float)
    T2 = fd.ops.broadcast_in_dim(T1, shape=[7, 2], broadcast_dims=[1])
    T3 = fd.ops.cast(T2, dtype=DataType.Bool)
    T4 = fd.ops.broadcast_in_dim(T3, shape=[3, 6, 7, -1], broadcast_dims=[2, 3])
    fd.add_output(T3)
    fd.add_output(T4)

inputs = [
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
