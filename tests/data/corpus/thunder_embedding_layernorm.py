# Thunder style: token embedding lookup (embedding_fwd with Thunder's scalar
# arguments) plus a learned position embedding, then a weight-only layer norm
# over the hidden dim.
# expect-inputs: 4
# expect-outputs: 1
# expect-ops: reshape=2 index_select=1 broadcast=4 expand=4 binary=5 var_mean=1 unary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id2(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False, stride_order=[0])
    S4 = fd.define_scalar(2.00000, dtype=DataType.Double)
    S5 = fd.define_scalar(False, dtype=DataType.Bool)
    T6 = fd.ops.embedding_fwd(T0, T1, None, None, S4, S5, S5)
    T7 = fd.ops.broadcast_in_dim(T2, shape=[2, 6, 32], broadcast_dims=[1, 2])
    T8 = fd.ops.add(T6, T7)
    T9, T10 = fd.ops.var_mean(T8, dims=[2], correction=0, keepdim=False)
    S11 = fd.define_scalar(1.00000e-05, dtype=DataType.Double)
    T12 = fd.ops.add(T9, S11)
    T13 = fd.ops.rsqrt(T12)
    T14 = fd.ops.broadcast_in_dim(T10, shape=[2, 6, 32], broadcast_dims=[0, 1])
    T15 = fd.ops.broadcast_in_dim(T13, shape=[2, 6, 32], broadcast_dims=[0, 1])
    T16 = fd.ops.sub(T8, T14)
    T17 = fd.ops.mul(T16, T15)
    T18 = fd.ops.broadcast_in_dim(T3, shape=[2, 6, 32], broadcast_dims=[2])
    T19 = fd.ops.mul(T17, T18)
    fd.add_output(T19)

with FusionDefinition() as fd:
    nvfuser_fusion_id2(fd)

inputs = [
    torch.randint(0, 50, (2, 6), dtype=torch.int64, device="cuda"),
    torch.randn(50, 32, dtype=torch.float32, device="cuda"),
    torch.randn(6, 32, dtype=torch.float32, device="cuda"),
    torch.randn(32, dtype=torch.float32, device="cuda"),
]
fd.execute(inputs)
