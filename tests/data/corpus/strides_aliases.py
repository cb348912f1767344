# Input layouts (stride_order, non-contiguous dims, the older symbolic_sizes
# spelling), a required output stride order, an output aliasing an input, and
# an inputs list whose tensors are views made with as_strided.
# expect-inputs: 3
# expect-outputs: 3
# expect-ops: binary=2 unary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[False, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[0, 2, 1])
    T1 = fd.define_tensor(symbolic_sizes=[-1, -1, 1], contiguity=[False, True, None], dtype=DataType.Float)
    T2 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.ops.add(T0, T1)
    T4 = fd.ops.mul(T3, T2)
    T5 = fd.ops.exp(T2)
    fd.add_output(T3)
    fd.add_output(T4, stride_order=[0, 1, 2])
    fd.add_output(T5, alias_input=T2)

inputs = [
    torch.randn(28, dtype=torch.float32, device="cuda:0").as_strided((2, 3, 4), (1, 10, 2)),
    torch.randn(2, 8, 1, device='cuda:0').as_strided((2, 3, 1), (8, 1, 1)),
    torch.randn((2, 3, 4), dtype=torch.float32, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
