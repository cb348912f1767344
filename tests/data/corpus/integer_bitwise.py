# Integer and bool tensors: bitwise and logical ops, shifts, ceilDiv, remainder.
# expect-inputs: 3
# expect-outputs: 4
# expect-ops: unary=2 binary=8
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Bool, is_cpu=False)
    T3 = fd.ops.bitwise_not(T0)
    T4 = fd.ops.bitwise_and(T3, T1)
    T5 = fd.ops.bitwise_or(T4, T1)
    T6 = fd.ops.bitwise_xor(T5, T0)
    S7 = fd.define_scalar(2, dtype=DataType.Int)
    T8 = fd.ops.bitwise_left_shift(T6, S7)
    T9 = fd.ops.bitwise_right_shift(T8, S7)
    S10 = fd.define_scalar(3, dtype=DataType.Int)
    T11 = fd.ops.ceilDiv(T9, S10)
    T12 = fd.ops.remainder(T11, S10)
    T13 = fd.ops.logical_not(T2)
    T14 = fd.ops.logical_and(T13, T2)
    fd.add_output(T9)
    fd.add_output(T11)
    fd.add_output(T12)
    fd.add_output(T14)

inputs = [
    torch.randint(0, 100, (3, 4), dtype=torch.int32, device="cuda"),
    torch.randint(-50, 50, (3, 4), dtype=torch.int64, device="cuda"),
    torch.testing.make_tensor((3, 4), dtype=torch.bool, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
