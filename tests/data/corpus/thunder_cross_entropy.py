# Thunder style: cross-entropy loss of logits [8, 32] with int64 labels that
# use ignore_index -100: log_softmax, take_along_axis of the label column,
# the ignored rows masked with where, and the mean over the valid rows.
# expect-inputs: 2
# expect-outputs: 2
# expect-ops: reduction=4 broadcast=3 expand=3 binary=4 unary=3 ternary=2 take_along_axis=1 squeeze=1 cast=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id9(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T2 = fd.ops.max(T0, dims=[1], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.broadcast_in_dim(T2, shape=[8, 32], broadcast_dims=[0])
    T4 = fd.ops.sub(T0, T3)
    T5 = fd.ops.exp(T4)
    T6 = fd.ops.sum(T5, dims=[1], keepdim=False, dtype=DataType.Null)
    T7 = fd.ops.log(T6)
    T8 = fd.ops.broadcast_in_dim(T7, shape=[8, 32], broadcast_dims=[0])
    T9 = fd.ops.sub(T4, T8)
    S10 = fd.define_scalar(-100, dtype=DataType.Int)
    T11 = fd.ops.ne(T1, S10)
    S12 = fd.define_scalar(0, dtype=DataType.Int)
    T13 = fd.ops.where(T11, T1, S12)
    T14 = fd.ops.broadcast_in_dim(T13, shape=[8, 1], broadcast_dims=[0])
    T15 = fd.ops.take_along_axis(T9, T14, dim=1)
    T16 = fd.ops.squeeze(T15, dims=[1])
    T17 = fd.ops.neg(T16)
    S18 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T19 = fd.ops.where(T11, T17, S18)
    T20 = fd.ops.sum(T19, dims=[0], keepdim=False, dtype=DataType.Null)
    T21 = fd.ops.cast(T11, dtype=DataType.Float)
    T22 = fd.ops.sum(T21, dims=[0], keepdim=False, dtype=DataType.Null)
    T23 = fd.ops.div(T20, T22)
    fd.add_output(T23)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id9(fd)

inputs = [
    torch.randn(8, 32, dtype=torch.float32, device="cuda"),
    torch.tensor([3, -100, 31, 0, 7, -100, 12, 5], device="cuda"),
]
fd.execute(inputs)
