# GELU backward with the bias gradient at 16x512x4096 float32 (nvFuser issue 785;
# issue 10 performance workload: one kernel writes grad_x and reduces grad_b).
#
#   x      = T1 + bias                      (T2 broadcast over the batch dims)
#   t      = tanh(k * (x + 0.044715 * x^3)),   k = sqrt(2 / pi)
#   dgelu  = 0.5 * (1 + t) + 0.5 * x * (1 - t^2) * k * (1 + 3 * 0.044715 * x^2)
#   grad_x = grad_out * dgelu               (output 0)
#   grad_b = sum(grad_x, dims=[0, 1])       (output 1)
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    V3 = T1.shape()
    T4 = fd.ops.broadcast_in_dim(T2, shape=V3, broadcast_dims=[2])
    T5 = fd.ops.add(T1, T4)
    T6 = fd.ops.mul(T5, T5)
    T7 = fd.ops.mul(T6, T5)
    S8 = fd.define_scalar(0.044715, dtype=DataType.Double)
    T9 = fd.ops.mul(S8, T7)
    T10 = fd.ops.add(T5, T9)
    S11 = fd.define_scalar(0.7978845608028654, dtype=DataType.Double)
    T12 = fd.ops.mul(S11, T10)
    T13 = fd.ops.tanh(T12)
    S14 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T15 = fd.ops.add(S14, T13)
    S16 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T17 = fd.ops.mul(S16, T15)
    T18 = fd.ops.mul(T13, T13)
    S19 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T20 = fd.ops.sub(S19, T18)
    S21 = fd.define_scalar(0.134145, dtype=DataType.Double)
    T22 = fd.ops.mul(S21, T6)
    S23 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T24 = fd.ops.add(S23, T22)
    T25 = fd.ops.mul(S11, T24)
    T26 = fd.ops.mul(T20, T25)
    T27 = fd.ops.mul(T5, T26)
    T28 = fd.ops.mul(S16, T27)
    T29 = fd.ops.add(T17, T28)
    T30 = fd.ops.mul(T0, T29)
    T31 = fd.ops.sum(T30, dims=[0, 1], keepdim=False, dtype=DataType.Null)
    fd.add_output(T30)
    fd.add_output(T31)

inputs = [
    torch.randn(16, 512, 4096, device="cuda"),
    torch.randn(16, 512, 4096, device="cuda"),
    torch.randn(4096, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    out = fd.execute(inputs)
