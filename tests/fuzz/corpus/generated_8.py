# fusebox fuzz case, seed 8 (features: size0, strided-input, broadcast, unary, pad, reshape, squeeze-expanded)
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[0, -1, 7], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False)
    T2 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Half, is_cpu=False)
    T3 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T4 = fd.ops.broadcast(T0, is_broadcast_dim=[False, False, True, False])
    T5 = fd.ops.broadcast_in_dim(T4, shape=[0, -1, 7, 7], broadcast_dims=[0, 1, 2, 3])
    T6 = fd.ops.trunc(T5)
    T7 = fd.ops.pad(T6, [0, -1, 2, 2, -1, 2], -0.75)
    T8 = fd.ops.reshape(T4, new_shape=[0])
    T9 = fd.ops.erfinv(T7)
    T10 = fd.ops.squeeze(T6, dims=[2], squeeze_expanded=True)
    fd.add_output(T10)

inputs = [
    torch.testing.make_tensor((2,), dtype=torch.float32, device='cuda:0', low=-100, high=100).as_strided((0, 7, 7), (49, 7, 1), 1),
    torch.testing.make_tensor((7,), dtype=torch.float16, device='cuda:0', low=-2, high=2),
    torch.testing.make_tensor((), dtype=torch.float16, device='cuda:0', low=-100, high=100),
    torch.testing.make_tensor((), dtype=torch.float32, device='cuda:0', low=-9, high=9),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
