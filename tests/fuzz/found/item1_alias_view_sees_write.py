# Issue 8 item 1, found by fusebox_fuzz (seed 4294967492, minimized). T8 is
# written in place of T0 (alias_input); T7, another output, is a broadcast of
# T0 and must hold T0's values from before the call (nvFuser semantics: the
# aliased write lands when the fusion completes). The runtime returns T7 as a
# view of T0 (no_op), so it shows the new values (`fusebox_fuzz check FILE
# --backend eval`: "output T7 (int64): element 1 of 96: got 1, expected -1").
# fuzz-exact: T8 T7
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, 8, -1], contiguity=[True, True, True], dtype=DataType.Int, is_cpu=False)
    T3 = fd.ops.logical_and(T0, -3)
    T6 = fd.ops.broadcast_in_dim(T0, shape=[3, 8, 1, -1], broadcast_dims=[0, 1, 3])
    T7 = fd.ops.broadcast_in_dim(T6, shape=[3, 8, 1, -1], broadcast_dims=[0, 1, 2, 3])
    T8 = fd.ops.cast(T3, dtype=DataType.Int)
    fd.add_output(T8, alias_input=T0)
    fd.add_output(T7)

inputs = [
    torch.testing.make_tensor((3, 8, 4), dtype=torch.int64, device='cuda:0', low=-2, high=2),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
