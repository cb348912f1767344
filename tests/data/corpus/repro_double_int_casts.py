# Repro-dump style: double and integer arithmetic with casts among int32,
# int64, float and double (a float round trip, a floor to int64), inputs from
# make_tensor with low/high bounds.
# expect-inputs: 3
# expect-outputs: 3
# expect-ops: cast=6 binary=4 broadcast=1 expand=1 unary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id11(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Double, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False, stride_order=[1, 0])
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False, stride_order=[0])
    T3 = fd.ops.cast(T1, dtype=DataType.Double)
    T4 = fd.ops.mul(T0, T3)
    T5 = fd.ops.broadcast_in_dim(T2, shape=[4, 5], broadcast_dims=[1])
    T6 = fd.ops.cast(T5, dtype=DataType.Double)
    T7 = fd.ops.add(T4, T6)
    T8 = fd.ops.floor(T7)
    T9 = fd.ops.cast(T8, dtype=DataType.Int)
    T10 = fd.ops.cast(T7, dtype=DataType.Float)
    T11 = fd.ops.cast(T10, dtype=DataType.Double)
    T12 = fd.ops.sub(T7, T11)
    T13 = fd.ops.cast(T9, dtype=DataType.Int32)
    T14 = fd.ops.mul(T13, T1)
    fd.add_output(T9)
    fd.add_output(T12)
    fd.add_output(T14)

with FusionDefinition() as fd:
    nvfuser_fusion_id11(fd)

inputs = [
    torch.testing.make_tensor((4, 5), dtype=torch.float64, device='cuda:0'),
    torch.testing.make_tensor((4, 5), dtype=torch.int32, device='cuda:0', low=-3, high=4),
    torch.testing.make_tensor((5,), dtype=torch.int64, device='cuda:0', low=0, high=100),
]
fd.execute(inputs)
