# fusebox fuzz case, seed 233 (features: size1-iteration, strided-input, scalar-input, slice, binary, permute)
# fuzz-exact: T6
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[1, 1], contiguity=[None, None], dtype=DataType.Double, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    S3 = fd.define_scalar(None, dtype=DataType.Int32)
    T4 = fd.ops.slice(T1, start_indices=[0, 0], end_indices=[1, 1], strides=[1, 1])
    T5 = fd.ops.sub(T1, T4)
    T6 = fd.ops.permute(T5, dims=[0, 1])
    fd.add_output(T6)

inputs = [
    torch.testing.make_tensor((4, 1), dtype=torch.float32, device='cuda:0', low=-2, high=2),
    torch.randn((1,), dtype=torch.float64, device='cuda:0').as_strided((1, 1), (1, 1), 0),
    -2.00,
    5,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
