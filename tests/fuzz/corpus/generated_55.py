# fusebox fuzz case, seed 55 (features: large, ternary, cast, slice, binary, output-stride-order)
# fuzz-exact: T1 T2 T4 T5
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[55, -1], contiguity=[True, True], dtype=DataType.Double, is_cpu=False)
    T1 = fd.define_tensor(shape=[], contiguity=[], dtype=DataType.Half, is_cpu=False)
    T2 = fd.ops.clamp(T1, -1.5, 1)
    T3 = fd.ops.cast(T1, dtype=DataType.Int32)
    T4 = fd.ops.slice(T0, start_indices=[0, 0], end_indices=[55, 256], strides=[1, 1])
    T5 = fd.ops.div(T3, T2)
    fd.add_output(T1)
    fd.add_output(T4, stride_order=[0, 1])
    fd.add_output(T5)
    fd.add_output(T2)

inputs = [
    torch.testing.make_tensor((55, 256), dtype=torch.float64, device='cuda:0', low=-3, high=3),
    torch.testing.make_tensor((), dtype=torch.float16, device='cuda:0', low=-5, high=5),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
