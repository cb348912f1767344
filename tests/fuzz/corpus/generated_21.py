# fusebox fuzz case, seed 21 (features: strided-input, binary, squeeze, slice)
# fuzz-exact: T3 T4
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, 1], contiguity=[False, None], dtype=DataType.Half, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, 1], contiguity=[False, None], dtype=DataType.Int, is_cpu=False)
    T2 = fd.ops.bitwise_right_shift(T1, -4)
    T3 = fd.ops.squeeze(T0, dims=[1])
    T4 = fd.ops.slice(T2, start_indices=[0, 0], end_indices=[5, 1], strides=[1, 1])
    fd.add_output(T4)
    fd.add_output(T3)

inputs = [
    torch.testing.make_tensor((17,), dtype=torch.float16, device='cuda:0', low=-2, high=2).as_strided((5, 1), (4, 2), 0),
    torch.testing.make_tensor((15,), dtype=torch.int64, device='cuda:0', low=-3, high=3).as_strided((5, 1), (3, 1), 2),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
