# sum/prod/max/min with dims, the older axes spelling, keepdim and dtype; var,
# var_mean and welford.
# expect-inputs: 2
# expect-outputs: 10
# expect-ops: reduction=5 broadcast=2 var=1 var_mean=1 welford=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
    T2 = fd.ops.sum(T0, dims=[0, 2], keepdim=False, dtype=DataType.Null)
    T3 = fd.ops.sum(T1, axes=[1], keepdim=True, dtype=DataType.Null)
    T4 = fd.ops.prod(T0, [1], False, DataType.Double)
    T5 = fd.ops.max(T0, dims=[-1], keepdim=True)
    T6 = fd.ops.min(T1, dims=[0])
    T7 = fd.ops.var(T0, dims=[1], correction=1, keepdim=False)
    T8, T9 = fd.ops.var_mean(T0, [0, 1], 0)
    T10, T11, T12 = fd.ops.welford(T0, dims=[2])
    fd.add_output(T2)
    fd.add_output(T3)
    fd.add_output(T4)
    fd.add_output(T5)
    fd.add_output(T6)
    fd.add_output(T7)
    fd.add_output(T8)
    fd.add_output(T9)
    fd.add_output(T10)
    fd.add_output(T12)

inputs = [
    torch.randn(2, 3, 4, device="cuda"),
    torch.randint(-5, 5, (3, 4), dtype=torch.int32, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
