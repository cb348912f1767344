# Sorting ops as Thunder emits them: argsort (ascending and descending, on a
# computed input) and topk (largest and smallest, k a constant and a scalar
# input), with elementwise math around them so a kernel segment remains.
# expect-inputs: 3
# expect-outputs: 6
# expect-ops: argsort=2 topk=2 unary=1 binary=2
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    T3 = fd.ops.exp(T0)
    T4 = fd.ops.argsort(T3, dim=1, descending=True, stable=False)
    T5 = fd.ops.argsort(T1, 0, stable=True)
    T6, T7 = fd.ops.topk(T0, 3, dim=-1, largest=True, sorted=True)
    T8, T9 = fd.ops.topk(T1, S2, dim=0, largest=False)
    T10 = fd.ops.add(T6, 1.5)
    T11 = fd.ops.mul(T8, 2)
    fd.add_output(T4)
    fd.add_output(T5)
    fd.add_output(T7)
    fd.add_output(T9)
    fd.add_output(T10)
    fd.add_output(T11)

inputs = [
    torch.randn(5, 6, device="cuda"),
    torch.randint(0, 4, (5, 6), dtype=torch.int64, device="cuda"),
    2,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
