# A bfloat16 cast-mul-add chain: out = bf16(float(a) * float(b) + float(c)), 8192x8192.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.cast(T1, dtype=DataType.Float)
    T5 = fd.ops.cast(T2, dtype=DataType.Float)
    T6 = fd.ops.mul(T3, T4)
    T7 = fd.ops.add(T6, T5)
    T8 = fd.ops.cast(T7, dtype=DataType.BFloat16)
    fd.add_output(T8)

inputs = [
    torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda"),
    torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda"),
    torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
