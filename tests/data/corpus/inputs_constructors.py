# Every constructor the inputs list accepts: randn, rand, ones, zeros, full,
# randint, testing.make_tensor, as_strided, and plain numbers for scalars.
# expect-inputs: 10
# expect-outputs: 1
# expect-ops: binary=9 cast=3
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T4 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T5 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    T6 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T7 = fd.define_tensor(shape=[-1, -1], contiguity=[True, False], dtype=DataType.Float, is_cpu=False)
    S8 = fd.define_scalar(None, dtype=DataType.Double)
    S9 = fd.define_scalar(None, dtype=DataType.Int)
    T10 = fd.ops.cast(T1, dtype=DataType.Float)
    T11 = fd.ops.cast(T5, dtype=DataType.Float)
    T12 = fd.ops.cast(T6, dtype=DataType.Float)
    T13 = fd.ops.add(T0, T10)
    T14 = fd.ops.add(T13, T2)
    T15 = fd.ops.add(T14, T3)
    T16 = fd.ops.add(T15, T4)
    T17 = fd.ops.add(T16, T11)
    T18 = fd.ops.add(T17, T12)
    T19 = fd.ops.add(T18, T7)
    T20 = fd.ops.mul(T19, S8)
    T21 = fd.ops.add(T20, S9)
    fd.add_output(T21)

inputs = [
    torch.randn(2, 3, device='cuda'),
    torch.rand((2, 3), dtype=torch.float16, device='cuda:0', requires_grad=False),
    torch.ones(2, 3, device='cuda'),
    torch.zeros((2, 3), device='cuda'),
    torch.full((2, 3), 1.5, device='cuda'),
    torch.randint(0, 10, (2, 3), dtype=torch.int64, device='cuda'),
    torch.testing.make_tensor((2, 3), dtype=torch.bfloat16, device='cuda:0', low=-2, high=2),
    torch.randn(2, 6, device='cuda').as_strided((2, 3), (6, 2)),
    -0.75,
    4,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
