# fusebox fuzz case, seed 12897786791018 (features: strided-input, scalar-input, unary, symbolic-shape, slice, pad, set, cast, binary, reduction, broadcast, alias, output-stride-order)
# fuzz-backend: host
# minimized; failure: input-modified (aliased by an output)
# fuzz-tolerance: T20=Float
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1, -1], contiguity=[None, True, True], dtype=DataType.Double, is_cpu=False)
    T1 = fd.define_tensor(shape=[1, -1, -1], contiguity=[None, True, True], dtype=DataType.Float, is_cpu=False)
    T5 = fd.ops.atanh(T1)
    T20 = fd.ops.cast(T5, dtype=DataType.Double)
    fd.add_output(T20, alias_input=T0)

inputs = [
    torch.testing.make_tensor((12,), dtype=torch.float64, device='cuda:0', low=-100, high=100).as_strided((1, 3, 4), (12, 4, 1), 0),
    torch.randn((1, 3, 4), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
