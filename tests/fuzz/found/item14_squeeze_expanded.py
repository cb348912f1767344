# Issue 8 item 14, found by fusebox_fuzz (seed 4294967305: the generator's
# `frontend-rejects` category, minimized). squeeze_expanded=True of broadcast
# dims expanded to 2 and 0 is refused while parsing:
#   item14_squeeze_expanded.py:15:10: fd.ops.squeeze: dim 0 of T3_g[2, 0, 4, 33] has size 2; only
#   broadcast or size-1 dims can be squeezed
# though docs/python-frontend.md and the op table say any broadcast dim,
# expanded or not, can be squeezed.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.ops.uniform(-1.0, 2.0, shape=[33], dtype=DataType.Double)
    T1 = fd.ops.prod(T0, dims=[0], keepdim=False, dtype=DataType.Double)
    T2 = fd.ops.broadcast_in_dim(T1, shape=[2, 0, 4, 33], broadcast_dims=[])
    T3 = fd.ops.squeeze(T2, dims=[0, 1], squeeze_expanded=True)
    fd.add_output(T3)

inputs = [
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
