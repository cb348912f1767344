# Activations, rounding and predicates on a double tensor, chained through a
# where so every op stays live.
# expect-inputs: 1
# expect-outputs: 3
# expect-ops: unary=18 binary=5 cast=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double, is_cpu=False)
    T1 = fd.ops.abs(T0)
    T2 = fd.ops.neg(T1)
    T3 = fd.ops.sigmoid(T2)
    T4 = fd.ops.relu(T3)
    T5 = fd.ops.silu(T4)
    T6 = fd.ops.erf(T5)
    T7 = fd.ops.erfc(T6)
    T8 = fd.ops.floor(T7)
    T9 = fd.ops.ceil(T8)
    T10 = fd.ops.round(T9)
    T11 = fd.ops.trunc(T10)
    T12 = fd.ops.frac(T0)
    T13 = fd.ops.sign(T0)
    T14 = fd.ops.add(T11, T12)
    T15 = fd.ops.add(T14, T13)
    T16 = fd.ops.isfinite(T15)
    T17 = fd.ops.isinf(T15)
    T18 = fd.ops.isnan(T15)
    T19 = fd.ops.isneginf(T15)
    T20 = fd.ops.isposinf(T15)
    T21 = fd.ops.logical_or(T16, T17)
    T22 = fd.ops.logical_or(T18, T19)
    T23 = fd.ops.logical_or(T21, T22)
    T24 = fd.ops.cast(T20, dtype=DataType.Int)
    fd.add_output(T15)
    fd.add_output(T23)
    fd.add_output(T24)

inputs = [
    torch.randn(7, dtype=torch.float64, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
