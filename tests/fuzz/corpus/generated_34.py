# fusebox fuzz case, seed 34 (features: full, binary, ternary)
# fuzz-exact: T2 T3 T4
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Int, is_cpu=False)
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Int32, is_cpu=False)
    T2 = fd.ops.full(shape=[7], fill_value=-1, dtype=DataType.Int32)
    T3 = fd.ops.add(T1, T0)
    T4 = fd.ops.threshold(T2, -2, 5)
    fd.add_output(T2)
    fd.add_output(T3)
    fd.add_output(T4)

inputs = [
    torch.testing.make_tensor((8, 3, 7), dtype=torch.int64, device='cuda:0', low=-5, high=5),
    torch.testing.make_tensor((), dtype=torch.int32, device='cuda:0', low=-2, high=2),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
