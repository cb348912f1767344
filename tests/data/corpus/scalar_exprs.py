# Scalar inputs of every scalar dtype, scalar arithmetic on them, constants of
# each dtype, and a scalar output.
# expect-inputs: 5
# expect-outputs: 3
# expect-ops: binary=7 unary=1 cast=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    S0 = fd.define_scalar(dtype=DataType.Double)
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    S2 = fd.define_scalar(dtype=DataType.Bool)
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=True, dtype=DataType.Float, is_cpu=False)
    S4 = fd.define_scalar(None, dtype=DataType.Float)
    S5 = fd.ops.mul(S0, S1)
    S6 = fd.ops.neg(S5)
    S7 = fd.define_scalar(7, dtype=DataType.Int32)
    S8 = fd.ops.add(S6, S7)
    S9 = fd.define_scalar(1.5, dtype=DataType.Half)
    S10 = fd.define_scalar(-2.0, dtype=DataType.BFloat16)
    S11 = fd.ops.mul(S9, S10)
    S12 = fd.define_scalar(True, dtype=DataType.Bool)
    S13 = fd.ops.logical_and(S2, S12)
    S14 = fd.ops.cast(S13, dtype=DataType.Double)
    T15 = fd.ops.mul(T3, S8)
    T16 = fd.ops.add(T15, S11)
    T17 = fd.ops.mul(T16, S4)
    fd.add_output(T17)
    fd.add_output(S14)
    fd.add_output(S8)

inputs = [
    0.5,
    3,
    True,
    torch.ones(2, 3, device="cuda"),
    -1.25,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
