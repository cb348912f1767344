# fusebox fuzz case, seed 89 (features: strided-input, scalar-input, reshape, rand, reduction, scalar-ops, expand, alias)
# fuzz-exact: T11 T5 T8
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Half, is_cpu=False, stride_order=[0, 1])
    T1 = fd.define_tensor(shape=[33, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    S4 = fd.define_scalar(None, dtype=DataType.Float)
    T5 = fd.ops.reshape(T3, new_shape=[99])
    T6 = fd.ops.uniform(-1.0, 2.0, shape=[3], dtype=DataType.Half, rng_seed=88, rng_offset=0)
    T7 = fd.ops.prod(T6, dims=[0], keepdim=True, dtype=DataType.Float)
    T8 = fd.ops.reshape(T2, new_shape=[3])
    S9 = fd.ops.sub(S4, 0.5)
    T10 = fd.ops.expand(T7, shape=[1])
    T11 = fd.ops.cast(T6, dtype=DataType.Int)
    fd.add_output(T10)
    fd.add_output(T7)
    fd.add_output(T11, alias_input=T2)
    fd.add_output(T8)
    fd.add_output(T5)

inputs = [
    torch.testing.make_tensor((231,), dtype=torch.float16, device='cuda:0', low=-100, high=100).as_strided((33, 3), (1, 99), 0),
    torch.testing.make_tensor((33, 3), dtype=torch.float32, device='cuda:0', low=-5, high=5),
    torch.testing.make_tensor((3,), dtype=torch.int64, device='cuda:0', low=-9, high=9),
    torch.testing.make_tensor((33, 3), dtype=torch.int64, device='cuda:0', low=-2, high=2),
    0.75,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
