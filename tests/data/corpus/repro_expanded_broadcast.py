# Repro-dump style: an expanded (stride-0) input declared with contiguity None
# on a dim of size 7, as nvFuser prints it, reduced over the expanded dim and
# combined with a dense tensor.
# expect-inputs: 2
# expect-outputs: 2
# expect-ops: binary=2 reduction=2 broadcast=1 expand=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id2(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[None, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.add(T0, T1)
    T3 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.sum(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    T5 = fd.ops.broadcast_in_dim(T3, shape=[7, 12], broadcast_dims=[1])
    T6 = fd.ops.sub(T2, T5)
    fd.add_output(T4)
    fd.add_output(T6)

with FusionDefinition() as fd:
    nvfuser_fusion_id2(fd)

inputs = [
    torch.randn((12,), dtype=torch.float32, device='cuda:0').as_strided((7, 12), (0, 1)),
    torch.testing.make_tensor((7, 12), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
