# matmul with batch broadcasting and linear with and without bias, in half
# precision.
# expect-inputs: 4
# expect-outputs: 3
# expect-ops: matmul=1 linear=2
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Half, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False)
    T4 = fd.ops.matmul(T0, T1)
    T5 = fd.ops.linear(T0, T2, T3)
    T6 = fd.ops.linear(T0, T2)
    fd.add_output(T4)
    fd.add_output(T5)
    fd.add_output(T6)

inputs = [
    torch.randn(2, 3, 4, dtype=torch.float16, device="cuda"),
    torch.randn(4, 5, dtype=torch.float16, device="cuda"),
    torch.randn(6, 4, dtype=torch.float16, device="cuda"),
    torch.randn(6, dtype=torch.float16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
