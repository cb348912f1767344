# Comparisons feeding where; clamp, lerp and threshold.
# expect-inputs: 2
# expect-outputs: 3
# expect-ops: binary=10 ternary=4
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.eq(T0, T1)
    T3 = fd.ops.ne(T0, T1)
    T4 = fd.ops.lt(T0, T1)
    T5 = fd.ops.le(T0, T1)
    T6 = fd.ops.gt(T0, T1)
    T7 = fd.ops.ge(T0, T1)
    T8 = fd.ops.where(T4, T0, T1)
    S9 = fd.define_scalar(-0.5, dtype=DataType.Double)
    S10 = fd.define_scalar(0.5, dtype=DataType.Double)
    T11 = fd.ops.clamp(T8, S9, S10)
    S12 = fd.define_scalar(0.25, dtype=DataType.Double)
    T13 = fd.ops.lerp(T0, T1, S12)
    T14 = fd.ops.threshold(T13, S9, S10)
    T15 = fd.ops.logical_and(T2, T3)
    T16 = fd.ops.logical_or(T15, T5)
    T17 = fd.ops.logical_or(T16, T6)
    T18 = fd.ops.logical_and(T17, T7)
    fd.add_output(T11)
    fd.add_output(T14)
    fd.add_output(T18)

inputs = [
    torch.randn(10, device="cuda"),
    torch.randn(10, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
