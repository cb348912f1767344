# Repro-dump style (what nvFuser prints for a failing fusion): inputs from
# torch.testing.make_tensor and as_strided views (a transposed and a row-padded
# layout), and an output with a required stride order.
# expect-inputs: 3
# expect-outputs: 2
# expect-ops: binary=2 broadcast=1 expand=1 unary=1 reduction=1
# CUDA devices:
#  0: NVIDIA H100 80GB HBM3
# torch version: 2.5.1
# cuda version: 12.4
# nvfuser version: 0.2.23
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id5(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 1])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.ops.add(T0, T1)
    T4 = fd.ops.broadcast_in_dim(T2, shape=[6, 9], broadcast_dims=[1])
    T5 = fd.ops.mul(T3, T4)
    T6 = fd.ops.abs(T5)
    T7 = fd.ops.sum(T6, dims=[0], keepdim=False, dtype=DataType.Null)
    fd.add_output(T5, stride_order=[0, 1])
    fd.add_output(T7)

with FusionDefinition() as fd:
    nvfuser_fusion_id5(fd)

inputs = [
    torch.testing.make_tensor((9, 6), dtype=torch.float32, device='cuda:0').as_strided((6, 9), (1, 6)),
    torch.randn(60, dtype=torch.float32, device='cuda:0').as_strided((6, 9), (10, 1)),
    torch.testing.make_tensor((9,), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
