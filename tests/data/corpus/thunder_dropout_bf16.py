# Thunder style: dropout (p = 0.1) of bf16 activations [16, 48]: uniform
# randoms from seed and offset scalar inputs, a keep mask with lt, and the
# kept values scaled by 1 / 0.9; the mask is an output for the backward.
# expect-inputs: 3
# expect-outputs: 2
# expect-ops: rand=1 binary=3 cast=3
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id17(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[1, 0])
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(0.00000, dtype=DataType.Double)
    S4 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T5 = fd.ops.uniform(S3, S4, shape=[16, 48], rng_seed=S1, rng_offset=S2, dtype=DataType.BFloat16)
    S6 = fd.define_scalar(0.900000, dtype=DataType.Double)
    T7 = fd.ops.lt(T5, S6)
    T8 = fd.ops.cast(T0, dtype=DataType.Float)
    T9 = fd.ops.cast(T7, dtype=DataType.Float)
    T10 = fd.ops.mul(T8, T9)
    S11 = fd.define_scalar(1.11111, dtype=DataType.Double)
    T12 = fd.ops.mul(T10, S11)
    T13 = fd.ops.cast(T12, dtype=DataType.BFloat16)
    fd.add_output(T13)
    fd.add_output(T7)

with FusionDefinition() as fd:
    nvfuser_fusion_id17(fd)

inputs = [
    torch.randn(16, 48, dtype=torch.bfloat16, device="cuda"),
    20231125,
    4,
]
fd.execute(inputs)
