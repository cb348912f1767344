# Dropout (p = 0.1) of bf16 activations plus a residual, 8192x4096 (issue 31's
# random-number workload): a uniform draw per element from a seed and offset,
# the keep mask, the scaled kept values added to the residual; the output and
# the mask (which the backward needs) are both written.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(None, dtype=DataType.Int)
    S4 = fd.define_scalar(0.00000, dtype=DataType.Double)
    S5 = fd.define_scalar(1.00000, dtype=DataType.Double)
    V6 = T0.shape()
    T7 = fd.ops.uniform(S4, S5, shape=V6, rng_seed=S2, rng_offset=S3, dtype=DataType.BFloat16)
    S8 = fd.define_scalar(0.900000, dtype=DataType.Double)
    T9 = fd.ops.lt(T7, S8)
    T10 = fd.ops.cast(T0, dtype=DataType.Float)
    T11 = fd.ops.cast(T9, dtype=DataType.Float)
    T12 = fd.ops.mul(T10, T11)
    S13 = fd.define_scalar(1.11111, dtype=DataType.Double)
    T14 = fd.ops.mul(T12, S13)
    T15 = fd.ops.cast(T1, dtype=DataType.Float)
    T16 = fd.ops.add(T14, T15)
    T17 = fd.ops.cast(T16, dtype=DataType.BFloat16)
    fd.add_output(T17)
    fd.add_output(T9)

inputs = [
    torch.randn(8192, 4096, dtype=torch.bfloat16, device="cuda"),
    torch.randn(8192, 4096, dtype=torch.bfloat16, device="cuda"),
    1234,
    5678,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
