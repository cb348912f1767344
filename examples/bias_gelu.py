# Bias add followed by GELU (tanh approximation) in half precision, computed in
# float:  y = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))),  x = input + bias.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id3(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    V4 = T0.shape()
    T5 = fd.ops.broadcast_in_dim(T3, shape=V4, broadcast_dims=[1])
    T6 = fd.ops.add(T2, T5)
    S7 = fd.define_scalar(3.00000, dtype=DataType.Double)
    T8 = fd.ops.pow(T6, S7)
    S9 = fd.define_scalar(0.0447150, dtype=DataType.Double)
    T10 = fd.ops.mul(S9, T8)
    T11 = fd.ops.add(T6, T10)
    S12 = fd.define_scalar(0.797885, dtype=DataType.Double)
    T13 = fd.ops.mul(S12, T11)
    T14 = fd.ops.tanh(T13)
    S15 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T16 = fd.ops.add(S15, T14)
    S17 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T18 = fd.ops.mul(S17, T6)
    T19 = fd.ops.mul(T18, T16)
    T20 = fd.ops.cast(T19, dtype=DataType.Half)
    fd.add_output(T20)

inputs = [
    torch.randn((1024, 4096), dtype=torch.float16, device='cuda:0'),
    torch.randn((4096,), dtype=torch.float16, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id3(fd)

fd.execute(inputs)
