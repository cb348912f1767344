# Repro-dump style: non-finite values: isnan/isposinf/isneginf masks of a
# tensor holding nan and +-inf replaced through a where chain (nan_to_num),
# a per-row count of finite values, and an isnan-or-isinf mask.
# expect-inputs: 1
# expect-outputs: 3
# expect-ops: unary=5 ternary=3 cast=1 reduction=1 binary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id31(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.isnan(T0)
    S2 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T3 = fd.ops.where(T1, S2, T0)
    T4 = fd.ops.isposinf(T3)
    S5 = fd.define_scalar(10000.0, dtype=DataType.Double)
    T6 = fd.ops.where(T4, S5, T3)
    T7 = fd.ops.isneginf(T6)
    S8 = fd.define_scalar(-10000.0, dtype=DataType.Double)
    T9 = fd.ops.where(T7, S8, T6)
    T10 = fd.ops.isfinite(T0)
    T11 = fd.ops.cast(T10, dtype=DataType.Int)
    T12 = fd.ops.sum(T11, dims=[1], keepdim=False, dtype=DataType.Null)
    T13 = fd.ops.isinf(T0)
    T14 = fd.ops.logical_or(T1, T13)
    fd.add_output(T9)
    fd.add_output(T12)
    fd.add_output(T14)

with FusionDefinition() as fd:
    nvfuser_fusion_id31(fd)

inputs = [
    torch.tensor([[1.0, float('nan'), -2.0, float('inf')], [float('-inf'), 0.5, 3.0, -0.25], [float('nan'), float('nan'), 7.0, 1e30]], dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
