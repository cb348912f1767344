# Cross-entropy loss as a model computes it: log-softmax of bfloat16 logits
# over the vocabulary (in float), the target's log-probability picked by
# take_along_axis, the mean of its negation over the rows. fusebox runs it as
# two kernels: the gather_before_pointwise pass picks the target's logit
# instead of the whole log-softmax, so the row kernel writes per-row values
# only and the mean over the rows gathers the logits itself.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.max(T2, dims=[1], keepdim=False, dtype=DataType.Null)
    V4 = T0.shape()
    T5 = fd.ops.broadcast_in_dim(T3, shape=V4, broadcast_dims=[0])
    T6 = fd.ops.sub(T2, T5)
    T7 = fd.ops.exp(T6)
    T8 = fd.ops.sum(T7, dims=[1], keepdim=False, dtype=DataType.Null)
    T9 = fd.ops.log(T8)
    T10 = fd.ops.broadcast_in_dim(T9, shape=V4, broadcast_dims=[0])
    T11 = fd.ops.sub(T6, T10)
    S12 = T0.size(0)
    T13 = fd.ops.broadcast_in_dim(T1, shape=[S12, 1], broadcast_dims=[0])
    T14 = fd.ops.take_along_axis(T11, T13, dim=1)
    T15 = fd.ops.squeeze(T14, dims=[1])
    T16 = fd.ops.neg(T15)
    T17 = fd.ops.sum(T16, dims=[0], keepdim=False, dtype=DataType.Null)
    T18 = fd.ops.div(T17, S12)
    fd.add_output(T18)

inputs = [
    torch.randn(64, 4000, dtype=torch.bfloat16, device="cuda"),
    torch.randint(0, 4000, (64,), dtype=torch.int64, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
