# Broadcast, broadcast_in_dim (with a new dim to expand), squeeze, expand,
# set and segment_set.
# expect-inputs: 2
# expect-outputs: 3
# expect-ops: broadcast=3 expand=2 squeeze=1 set=1 segment_set=1 binary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.broadcast(T0, is_broadcast_dim=[True, False])
    T3 = fd.ops.squeeze(T1, dims=[1], squeeze_expanded=True)
    T4 = fd.ops.broadcast_in_dim(T0, shape=[4, -1], broadcast_dims=[1])
    S5 = T1.size(0)
    T6 = fd.ops.expand(T2, shape=[S5, -1])
    T7 = fd.ops.add(T6, T3)
    T8 = fd.ops.set(T7)
    T9 = fd.ops.segment_set(T8)
    T10 = fd.ops.broadcast(T9, is_broadcast_dim=[False, True, False])
    fd.add_output(T10)
    fd.add_output(T4)
    fd.add_output(T3)

inputs = [
    torch.randn(6, device="cuda"),
    torch.randn(3, 1, 6, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
