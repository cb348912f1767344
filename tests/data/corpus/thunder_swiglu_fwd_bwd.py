# Thunder style: a SwiGLU MLP's pointwise part, forward and backward, in bf16:
# silu(gate) * up written with exp and reciprocal, then the gate and up
# gradients from the output gradient.
# expect-inputs: 3
# expect-outputs: 3
# expect-ops: cast=6 unary=3 binary=10
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id21(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.cast(T2, dtype=DataType.Float)
    T6 = fd.ops.neg(T3)
    T7 = fd.ops.exp(T6)
    S8 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T9 = fd.ops.add(S8, T7)
    T10 = fd.ops.reciprocal(T9)
    T11 = fd.ops.mul(T3, T10)
    T12 = fd.ops.mul(T11, T4)
    T13 = fd.ops.cast(T12, dtype=DataType.BFloat16)
    T14 = fd.ops.mul(T5, T11)
    T15 = fd.ops.cast(T14, dtype=DataType.BFloat16)
    T16 = fd.ops.mul(T5, T4)
    T17 = fd.ops.sub(S8, T10)
    T18 = fd.ops.mul(T3, T17)
    T19 = fd.ops.add(S8, T18)
    T20 = fd.ops.mul(T10, T19)
    T21 = fd.ops.mul(T16, T20)
    T22 = fd.ops.cast(T21, dtype=DataType.BFloat16)
    fd.add_output(T13)
    fd.add_output(T22)
    fd.add_output(T15)

with FusionDefinition() as fd:
    nvfuser_fusion_id21(fd)

inputs = [
    torch.randn(16, 64, dtype=torch.bfloat16, device="cuda"),
    torch.randn(16, 64, dtype=torch.bfloat16, device="cuda"),
    torch.randn(16, 64, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
