# Repro-dump style: a channels-last NCHW half input (make_tensor with
# memory_format=torch.channels_last) plus a per-channel bias and relu, the
# result kept channels-last by the output's stride_order, and a float sum
# over H and W.
# expect-inputs: 2
# expect-outputs: 2
# expect-ops: cast=3 broadcast=1 expand=1 binary=1 unary=1 reduction=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id23(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Half, is_cpu=False, stride_order=[3, 0, 2, 1])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False, stride_order=[0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.broadcast_in_dim(T1, shape=[2, 8, 5, 5], broadcast_dims=[1])
    T4 = fd.ops.cast(T3, dtype=DataType.Float)
    T5 = fd.ops.add(T2, T4)
    T6 = fd.ops.relu(T5)
    T7 = fd.ops.cast(T6, dtype=DataType.Half)
    T8 = fd.ops.sum(T6, dims=[2, 3], keepdim=False, dtype=DataType.Null)
    fd.add_output(T7, stride_order=[3, 0, 2, 1])
    fd.add_output(T8)

with FusionDefinition() as fd:
    nvfuser_fusion_id23(fd)

inputs = [
    torch.testing.make_tensor((2, 8, 5, 5), dtype=torch.float16, device='cuda:0', memory_format=torch.channels_last),
    torch.testing.make_tensor((8,), dtype=torch.float16, device='cuda:0'),
]
fd.execute(inputs)
