# Repro-dump style: an upper-triangular part from triu (iotas, ge, where), a
# cumsum along rows on the evaluator, then sigmoid and lerp back towards the
# input, which run as a generated kernel.
# expect-inputs: 1
# expect-outputs: 1
# expect-ops: iota=2 broadcast=2 binary=2 ternary=2 scan=1 unary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id4(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.ops.triu(T0, 1)
    T2 = fd.ops.cumsum(T1, dim=1)
    T3 = fd.ops.sigmoid(T2)
    S4 = fd.define_scalar(0.250000, dtype=DataType.Double)
    T5 = fd.ops.lerp(T0, T3, S4)
    fd.add_output(T5)

with FusionDefinition() as fd:
    nvfuser_fusion_id4(fd)

inputs = [
    torch.testing.make_tensor((8, 8), dtype=torch.float32, device='cuda:0'),
]
fd.execute(inputs)
