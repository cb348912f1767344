# Thunder style: row lookups in half precision: index_select of rows of a
# [10, 16] table by an int32 index, a gather along dim 1 with an int64 index,
# and float reductions of both (sum, max of sigmoid).
# expect-inputs: 3
# expect-outputs: 2
# expect-ops: index_select=1 gather=1 cast=2 reduction=2 unary=1 binary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id63(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int32, is_cpu=False, stride_order=[0])
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False, stride_order=[1, 0])
    T3 = fd.ops.index_select(T0, T1, dim=0)
    T4 = fd.ops.gather(T3, T2, dim=1)
    T5 = fd.ops.cast(T4, dtype=DataType.Float)
    T6 = fd.ops.sum(T5, dims=[1], keepdim=False, dtype=DataType.Null)
    T7 = fd.ops.cast(T3, dtype=DataType.Float)
    T8 = fd.ops.sigmoid(T7)
    T9 = fd.ops.max(T8, dims=[1], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.add(T6, T9)
    fd.add_output(T10)
    fd.add_output(T4)

with FusionDefinition() as fd:
    nvfuser_fusion_id63(fd)

inputs = [
    torch.randn(10, 16, dtype=torch.float16, device="cuda"),
    torch.tensor([9, 0, 3, 3, 7], dtype=torch.int32, device="cuda"),
    torch.randint(0, 16, (5, 4), dtype=torch.int64, device="cuda"),
]
fd.execute(inputs)
