# fusebox fuzz case, seed 3 (features: strided-input, big-int, slice, pad, binary, nonfinite, cast, rand, reduction, alias)
# fuzz-exact: T4 T6 T7 T8 T9 T10
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[False, None, True], dtype=DataType.Int32, is_cpu=False)
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double, is_cpu=False)
    T3 = fd.define_tensor(shape=[1, -1], contiguity=[None, True], dtype=DataType.Bool, is_cpu=False)
    T4 = fd.ops.slice(T3, start_indices=[0, 0], end_indices=[2, 5], strides=[1, 1])
    T5 = fd.ops.pad(T2, [0, -1], -1.5)
    T6 = fd.ops.minimum(T5, T1)
    T7 = fd.ops.pad(T5, [2, 0], float('inf'))
    T8 = fd.ops.cast(T4, dtype=DataType.Half)
    T9 = fd.ops.uniform(-1.0, 2.0, shape=[], dtype=DataType.BFloat16, rng_seed=210, rng_offset=4)
    T10 = fd.ops.min(T5, dims=[0], keepdim=False)
    fd.add_output(T4, alias_input=T3)
    fd.add_output(T8)
    fd.add_output(T6)
    fd.add_output(T10)
    fd.add_output(T7)
    fd.add_output(T9)

inputs = [
    torch.testing.make_tensor((39,), dtype=torch.int32, device='cuda:0', low=-2000000000, high=2000000000).as_strided((3, 1, 5), (15, 5, 1), 4),
    torch.testing.make_tensor((), dtype=torch.float32, device='cuda:0', low=-9, high=9),
    torch.testing.make_tensor((8,), dtype=torch.float64, device='cuda:0', low=-5, high=5).as_strided((5,), (1,), 3),
    torch.testing.make_tensor((1, 5), dtype=torch.bool, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
