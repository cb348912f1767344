# Thunder style: the pointwise tail around attention: softmax of scores
# [2, 2, 6, 6] under a bool key-padding mask [2, 6] (where with -inf), cast
# to bf16, and the attention output [2, 2, 6, 8] permuted and reshaped to
# [2, 6, 16].
# expect-inputs: 3
# expect-outputs: 2
# expect-ops: broadcast=3 expand=3 ternary=1 reduction=2 binary=2 unary=1 cast=1 permute=1 reshape=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id51(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Bool, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T3 = fd.ops.broadcast_in_dim(T1, shape=[2, 2, 6, 6], broadcast_dims=[0, 3])
    S4 = fd.define_scalar(float("-inf"), dtype=DataType.Double)
    T5 = fd.ops.where(T3, T0, S4)
    T6 = fd.ops.max(T5, dims=[3], keepdim=False, dtype=DataType.Null)
    T7 = fd.ops.broadcast_in_dim(T6, shape=[2, 2, 6, 6], broadcast_dims=[0, 1, 2])
    T8 = fd.ops.sub(T5, T7)
    T9 = fd.ops.exp(T8)
    T10 = fd.ops.sum(T9, dims=[3], keepdim=False, dtype=DataType.Null)
    T11 = fd.ops.broadcast_in_dim(T10, shape=[2, 2, 6, 6], broadcast_dims=[0, 1, 2])
    T12 = fd.ops.div(T9, T11)
    T13 = fd.ops.cast(T12, dtype=DataType.BFloat16)
    T14 = fd.ops.permute(T2, dims=[0, 2, 1, 3])
    T15 = fd.ops.reshape(T14, new_shape=[2, 6, 16])
    fd.add_output(T13)
    fd.add_output(T15)

with FusionDefinition() as fd:
    nvfuser_fusion_id51(fd)

inputs = [
    torch.randn(2, 2, 6, 6, dtype=torch.float32, device="cuda"),
    torch.tensor([[True, True, True, True, False, False], [True, True, True, True, True, True]], device="cuda"),
    torch.randn(2, 2, 6, 8, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
