# Thunder style: LayerNorm backward over [32, 64]: grad bias and grad weight
# (sums over rows) and grad input from the saved mean and rstd (sums over the
# normalized dim), in float.
# expect-inputs: 5
# expect-outputs: 3
# expect-ops: broadcast=5 expand=5 binary=11 reduction=4
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id7(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T5 = fd.ops.broadcast_in_dim(T2, shape=[32, 64], broadcast_dims=[0])
    T6 = fd.ops.broadcast_in_dim(T3, shape=[32, 64], broadcast_dims=[0])
    T7 = fd.ops.sub(T1, T5)
    T8 = fd.ops.mul(T7, T6)
    T9 = fd.ops.sum(T0, dims=[0], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.mul(T0, T8)
    T11 = fd.ops.sum(T10, dims=[0], keepdim=False, dtype=DataType.Null)
    T12 = fd.ops.broadcast_in_dim(T4, shape=[32, 64], broadcast_dims=[1])
    T13 = fd.ops.mul(T0, T12)
    T14 = fd.ops.sum(T13, dims=[1], keepdim=False, dtype=DataType.Null)
    T15 = fd.ops.mul(T13, T8)
    T16 = fd.ops.sum(T15, dims=[1], keepdim=False, dtype=DataType.Null)
    T17 = fd.ops.broadcast_in_dim(T14, shape=[32, 64], broadcast_dims=[0])
    T18 = fd.ops.broadcast_in_dim(T16, shape=[32, 64], broadcast_dims=[0])
    S19 = fd.define_scalar(64.0000, dtype=DataType.Double)
    T20 = fd.ops.mul(T13, S19)
    T21 = fd.ops.sub(T20, T17)
    T22 = fd.ops.mul(T8, T18)
    T23 = fd.ops.sub(T21, T22)
    S24 = fd.define_scalar(0.0156250, dtype=DataType.Double)
    T25 = fd.ops.mul(T6, S24)
    T26 = fd.ops.mul(T25, T23)
    fd.add_output(T26)
    fd.add_output(T11)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id7(fd)

inputs = [
    torch.randn(32, 64, dtype=torch.float32, device="cuda"),
    torch.randn(32, 64, dtype=torch.float32, device="cuda"),
    torch.testing.make_tensor((32,), dtype=torch.float32, device="cuda", low=-0.1, high=0.1),
    torch.testing.make_tensor((32,), dtype=torch.float32, device="cuda", low=0.5, high=2.0),
    torch.randn(64, dtype=torch.float32, device="cuda"),
]
fd.execute(inputs)
