# nvFuser-test style: scaled, causally masked softmax of half attention scores
# [batch, heads, q, k]. The mask comes from two iotas compared after a
# broadcast and is applied with where(-inf) before the max-subtracted exp.
# expect-inputs: 1
# expect-outputs: 1
# expect-ops: cast=2 binary=4 iota=2 broadcast=5 ternary=1 reduction=2 unary=1
import torch
from nvfuser import FusionDefinition, DataType

SEQ = 8
SCALE = 0.125


def fusion_func(fd: FusionDefinition):
    scores = fd.define_tensor(shape=[-1, -1, SEQ, SEQ], contiguity=[True, True, True, True], dtype=DataType.Half)
    scores_f = fd.ops.cast(scores, dtype=DataType.Float)
    scaled = fd.ops.mul(scores_f, SCALE)
    zero = fd.define_scalar(0, dtype=DataType.Int)
    one = fd.define_scalar(1, dtype=DataType.Int)
    length = fd.define_scalar(SEQ, dtype=DataType.Int)
    rows = fd.ops.iota(length, zero, one, dtype=DataType.Int)
    cols = fd.ops.iota(length, zero, one, dtype=DataType.Int)
    rows_b = fd.ops.broadcast(rows, is_broadcast_dim=[False, True])
    cols_b = fd.ops.broadcast(cols, is_broadcast_dim=[True, False])
    future = fd.ops.gt(cols_b, rows_b)
    future_b = fd.ops.broadcast(future, is_broadcast_dim=[True, True, False, False])
    neg_inf = fd.define_scalar(float("-inf"), dtype=DataType.Double)
    masked = fd.ops.where(future_b, neg_inf, scaled)
    row_max = fd.ops.max(masked, dims=[3], keepdim=True)
    shifted = fd.ops.sub(masked, row_max)
    e = fd.ops.exp(shifted)
    denom = fd.ops.sum(e, dims=[3], keepdim=True)
    probs = fd.ops.div(e, denom)
    out = fd.ops.cast(probs, dtype=DataType.Half)
    fd.add_output(out)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(2, 3, SEQ, SEQ, dtype=torch.float16, device="cuda"),
]

fd.execute(inputs)
