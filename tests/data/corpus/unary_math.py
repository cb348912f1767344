# Transcendental unary ops on a float tensor, one output each.
# expect-inputs: 1
# expect-outputs: 25
# expect-ops: unary=25
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.ops.exp(T0)
    T2 = fd.ops.exp2(T0)
    T3 = fd.ops.expm1(T0)
    T4 = fd.ops.log(T0)
    T5 = fd.ops.log2(T0)
    T6 = fd.ops.log10(T0)
    T7 = fd.ops.log1p(T0)
    T8 = fd.ops.sqrt(T0)
    T9 = fd.ops.rsqrt(T0)
    T10 = fd.ops.reciprocal(T0)
    T11 = fd.ops.sin(T0)
    T12 = fd.ops.cos(T0)
    T13 = fd.ops.tan(T0)
    T14 = fd.ops.asin(T0)
    T15 = fd.ops.acos(T0)
    T16 = fd.ops.atan(T0)
    T17 = fd.ops.sinh(T0)
    T18 = fd.ops.cosh(T0)
    T19 = fd.ops.tanh(T0)
    T20 = fd.ops.asinh(T0)
    T21 = fd.ops.acosh(T0)
    T22 = fd.ops.atanh(T0)
    T23 = fd.ops.erfinv(T0)
    T24 = fd.ops.lgamma(T0)
    T25 = fd.ops.erfcinv(T0)
    fd.add_output(T1)
    fd.add_output(T2)
    fd.add_output(T3)
    fd.add_output(T4)
    fd.add_output(T5)
    fd.add_output(T6)
    fd.add_output(T7)
    fd.add_output(T8)
    fd.add_output(T9)
    fd.add_output(T10)
    fd.add_output(T11)
    fd.add_output(T12)
    fd.add_output(T13)
    fd.add_output(T14)
    fd.add_output(T15)
    fd.add_output(T16)
    fd.add_output(T17)
    fd.add_output(T18)
    fd.add_output(T19)
    fd.add_output(T20)
    fd.add_output(T21)
    fd.add_output(T22)
    fd.add_output(T23)
    fd.add_output(T24)
    fd.add_output(T25)

inputs = [
    torch.rand(4, 5, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
