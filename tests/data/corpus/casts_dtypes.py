# Every dtype as an input, cast through the others.
# expect-inputs: 7
# expect-outputs: 7
# expect-ops: cast=7 binary=3
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Bool, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int32, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Half, is_cpu=False)
    T4 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.BFloat16, is_cpu=False)
    T5 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T6 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Double, is_cpu=False)
    T7 = fd.ops.cast(T0, dtype=DataType.Int32)
    T8 = fd.ops.cast(T1, dtype=DataType.Int)
    T9 = fd.ops.cast(T2, dtype=DataType.Half)
    T10 = fd.ops.cast(T3, dtype=DataType.BFloat16)
    T11 = fd.ops.cast(T4, dtype=DataType.Float)
    T12 = fd.ops.cast(T5, dtype=DataType.Double)
    T13 = fd.ops.cast(T6, dtype=DataType.Bool)
    T14 = fd.ops.add(T7, T1)
    T15 = fd.ops.mul(T9, T3)
    T16 = fd.ops.sub(T10, T4)
    fd.add_output(T14)
    fd.add_output(T8)
    fd.add_output(T15)
    fd.add_output(T16)
    fd.add_output(T11)
    fd.add_output(T12)
    fd.add_output(T13)

inputs = [
    torch.testing.make_tensor((5,), dtype=torch.bool, device="cuda:0"),
    torch.testing.make_tensor((5,), dtype=torch.int32, device="cuda:0"),
    torch.testing.make_tensor((5,), dtype=torch.int64, device="cuda:0", low=-3, high=3),
    torch.testing.make_tensor((5,), dtype=torch.float16, device="cuda:0"),
    torch.testing.make_tensor((5,), dtype=torch.bfloat16, device="cuda:0"),
    torch.testing.make_tensor((5,), dtype=torch.float32, device="cuda:0"),
    torch.testing.make_tensor((5,), dtype=torch.float64, device="cuda:0", exclude_zero=True),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
