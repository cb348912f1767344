# Repro-dump style: a half [64, 24] tensor reduced over its outer dim in
# float (amax of abs, sum) for a per-column scale, scaled and clamped to
# +-448 and cast back to half, as in an fp8-style quantization step.
# expect-inputs: 1
# expect-outputs: 3
# expect-ops: cast=3 unary=1 reduction=2 binary=2 broadcast=1 expand=1 ternary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id14(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.abs(T1)
    T3 = fd.ops.max(T2, dims=[0], keepdim=False, dtype=DataType.Null)
    T4 = fd.ops.sum(T1, dims=[0], keepdim=False, dtype=DataType.Null)
    S5 = fd.define_scalar(448.000, dtype=DataType.Double)
    T6 = fd.ops.div(S5, T3)
    T7 = fd.ops.broadcast_in_dim(T6, shape=[64, 24], broadcast_dims=[1])
    T8 = fd.ops.mul(T1, T7)
    S9 = fd.define_scalar(-448.000, dtype=DataType.Double)
    T10 = fd.ops.clamp(T8, S9, S5)
    T11 = fd.ops.cast(T10, dtype=DataType.Half)
    T12 = fd.ops.cast(T4, dtype=DataType.Half)
    fd.add_output(T11)
    fd.add_output(T12)
    fd.add_output(T6)

with FusionDefinition() as fd:
    nvfuser_fusion_id14(fd)

inputs = [
    torch.testing.make_tensor((64, 24), dtype=torch.float16, device='cuda:0'),
]
fd.execute(inputs)
