# Thunder style: bias add and the exact (erf) GELU, torch's default, on bf16
# activations [8, 96], computed in float and cast back to bf16.
# expect-inputs: 2
# expect-outputs: 1
# expect-ops: cast=3 broadcast=1 expand=1 binary=5 unary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id12(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.broadcast_in_dim(T1, shape=[8, 96], broadcast_dims=[1])
    T4 = fd.ops.cast(T3, dtype=DataType.Float)
    T5 = fd.ops.add(T2, T4)
    S6 = fd.define_scalar(0.707107, dtype=DataType.Double)
    T7 = fd.ops.mul(T5, S6)
    T8 = fd.ops.erf(T7)
    S9 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T10 = fd.ops.add(T8, S9)
    S11 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T12 = fd.ops.mul(T5, S11)
    T13 = fd.ops.mul(T12, T10)
    T14 = fd.ops.cast(T13, dtype=DataType.BFloat16)
    fd.add_output(T14)

with FusionDefinition() as fd:
    nvfuser_fusion_id12(fd)

inputs = [
    torch.randn(8, 96, dtype=torch.bfloat16, device="cuda"),
    torch.randn(96, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
