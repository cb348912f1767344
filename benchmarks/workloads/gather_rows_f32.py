# take_along_axis along rows: out[i, j] = x[i, idx[i, j]] for a float32
# [8192, 4096] x and an int64 index of the same shape (each row's gather
# stays within one 16 KiB row). torch_indexing.py's gather_rows_f32 is the
# same math (torch.gather).
import torch
from nvfuser import FusionDefinition, DataType

def fusion_func(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    T2 = fd.ops.take_along_axis(T0, T1, 1)
    fd.add_output(T2)

with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(8192, 4096, device='cuda'),
    torch.randint(0, 4096, (8192, 4096), dtype=torch.int64, device='cuda'),
]
fd.execute(inputs)
