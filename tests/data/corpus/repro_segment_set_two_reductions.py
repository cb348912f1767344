# Repro-dump style: a segment_set between an inner reduction and a second
# reduction of the input scaled by its broadcast result, which the segmenter
# must run as separate groups.
# expect-inputs: 1
# expect-outputs: 2
# expect-ops: reduction=2 segment_set=1 broadcast=1 expand=1 binary=1 unary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id1(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.ops.sum(T0, dims=[2], keepdim=False, dtype=DataType.Null)
    T2 = fd.ops.segment_set(T1)
    T3 = fd.ops.broadcast_in_dim(T2, shape=[3, 8, 20], broadcast_dims=[0, 1])
    T4 = fd.ops.mul(T0, T3)
    T5 = fd.ops.sum(T4, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.tanh(T5)
    fd.add_output(T6)
    fd.add_output(T1)

with FusionDefinition() as fd:
    nvfuser_fusion_id1(fd)

inputs = [
    torch.testing.make_tensor((3, 8, 20), dtype=torch.float32, device='cuda:0', low=-1, high=1),
]
fd.execute(inputs)
