# Indexing ops, scans and the newer elementwise ops: index_select, select,
# gather, take_along_axis, scatter (tensor and scalar src), embedding_fwd,
# cumsum/cumprod/cummax/cummin, triu, signbit, nextafter, gcd,
# logical_right_shift. Indices come from randint within the indexed sizes.
# expect-inputs: 5
# expect-outputs: 14
# expect-ops: index_select=2 select=1 gather=1 take_along_axis=1 scatter=2 scan=4 reshape=2 iota=2 broadcast=2 binary=5 ternary=1 unary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    S4 = fd.define_scalar(None, dtype=DataType.Int)
    T5 = fd.ops.index_select(T0, T1, dim=1)
    T6 = fd.ops.select(T0, S4, dim=0)
    T7 = fd.ops.gather(T0, T2, dim=1)
    T8 = fd.ops.take_along_axis(T0, T3, dim=0)
    T9 = fd.ops.scatter(T0, T2, T7, dim=1)
    T10 = fd.ops.scatter(T0, T3, -1.5, dim=0)
    T11 = fd.ops.cumsum(T2, dim=1)
    T12 = fd.ops.cumprod(T0, dim=0)
    T13 = fd.ops.cummax(T0, dim=1)
    T14 = fd.ops.cummin(T3, dim=0)
    T15 = fd.ops.triu(T0, 1)
    T16 = fd.ops.embedding_fwd(T3, T0, None, None, None, None, None)
    T17 = fd.ops.signbit(T5)
    T18 = fd.ops.nextafter(T6, 0.0)
    T19 = fd.ops.gcd(T2, T3)
    T20 = fd.ops.logical_right_shift(T3, 2)
    fd.add_output(T8)
    fd.add_output(T9)
    fd.add_output(T10)
    fd.add_output(T11)
    fd.add_output(T12)
    fd.add_output(T13)
    fd.add_output(T14)
    fd.add_output(T15)
    fd.add_output(T16)
    fd.add_output(T17)
    fd.add_output(T18)
    fd.add_output(T19)
    fd.add_output(T20)
    fd.add_output(T6)

inputs = [
    torch.randn(4, 4, device="cuda"),
    torch.randint(0, 4, (3,), dtype=torch.int64, device="cuda"),
    torch.randint(0, 4, (4, 4), dtype=torch.int32, device="cuda"),
    torch.randint(0, 4, (4, 4), dtype=torch.int64, device="cuda"),
    2,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
