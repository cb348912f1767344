# Thunder style: group norm of [2, 8, 16] with 4 groups: reshape to
# [2, 4, 2, 16], var_mean over each group, normalize, reshape back and apply
# the per-channel weight and bias.
# expect-inputs: 3
# expect-outputs: 3
# expect-ops: reshape=2 var_mean=1 binary=5 unary=1 broadcast=4 expand=4
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id5(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[2, 1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    T3 = fd.ops.reshape(T0, new_shape=[2, 4, 2, 16])
    T4, T5 = fd.ops.var_mean(T3, dims=[2, 3], correction=0, keepdim=False)
    S6 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T7 = fd.ops.add(T4, S6)
    T8 = fd.ops.rsqrt(T7)
    T9 = fd.ops.broadcast_in_dim(T5, shape=[2, 4, 2, 16], broadcast_dims=[0, 1])
    T10 = fd.ops.broadcast_in_dim(T8, shape=[2, 4, 2, 16], broadcast_dims=[0, 1])
    T11 = fd.ops.sub(T3, T9)
    T12 = fd.ops.mul(T11, T10)
    T13 = fd.ops.reshape(T12, new_shape=[2, 8, 16])
    T14 = fd.ops.broadcast_in_dim(T1, shape=[2, 8, 16], broadcast_dims=[1])
    T15 = fd.ops.broadcast_in_dim(T2, shape=[2, 8, 16], broadcast_dims=[1])
    T16 = fd.ops.mul(T13, T14)
    T17 = fd.ops.add(T16, T15)
    fd.add_output(T17)
    fd.add_output(T5)
    fd.add_output(T8)

with FusionDefinition() as fd:
    nvfuser_fusion_id5(fd)

inputs = [
    torch.randn(2, 8, 16, dtype=torch.float32, device="cuda"),
    torch.randn(8, dtype=torch.float32, device="cuda"),
    torch.randn(8, dtype=torch.float32, device="cuda"),
]
fd.execute(inputs)
