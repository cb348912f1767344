# The gradient of a mean cross-entropy loss with respect to bfloat16 logits,
# 4096 rows over a 32000-word vocabulary: (softmax(x) - one_hot(t)) * grad /
# rows, the softmax recomputed from the logits and the one-hot made by
# iota == target, as a decomposed backward writes it.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    T3 = fd.ops.cast(T0, dtype=DataType.Float)
    T4 = fd.ops.max(T3, dims=[1], keepdim=False, dtype=DataType.Null)
    V5 = T0.shape()
    T6 = fd.ops.broadcast_in_dim(T4, shape=V5, broadcast_dims=[0])
    T7 = fd.ops.sub(T3, T6)
    T8 = fd.ops.exp(T7)
    T9 = fd.ops.sum(T8, dims=[1], keepdim=False, dtype=DataType.Null)
    T10 = fd.ops.broadcast_in_dim(T9, shape=V5, broadcast_dims=[0])
    T11 = fd.ops.div(T8, T10)
    S12 = T0.size(1)
    S13 = fd.define_scalar(0, dtype=DataType.Int)
    S14 = fd.define_scalar(1, dtype=DataType.Int)
    T15 = fd.ops.iota(S12, S13, S14, dtype=DataType.Int)
    T16 = fd.ops.broadcast_in_dim(T15, shape=V5, broadcast_dims=[1])
    T17 = fd.ops.broadcast_in_dim(T1, shape=V5, broadcast_dims=[0])
    T18 = fd.ops.eq(T16, T17)
    T19 = fd.ops.cast(T18, dtype=DataType.Float)
    T20 = fd.ops.sub(T11, T19)
    S21 = T0.size(0)
    S22 = fd.ops.div(S2, S21)
    T23 = fd.ops.mul(T20, S22)
    T24 = fd.ops.cast(T23, dtype=DataType.BFloat16)
    fd.add_output(T24)

inputs = [
    torch.randn(4096, 32000, dtype=torch.bfloat16, device="cuda"),
    torch.randint(0, 32000, (4096,), dtype=torch.int64, device="cuda"),
    1.0,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
