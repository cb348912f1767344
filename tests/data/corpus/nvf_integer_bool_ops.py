# nvFuser-test style: integer and bool tensors as in index bookkeeping:
# int64 with int32 operands, remainder and ceilDiv, bool masks combined with
# logical ops, a where over ints, abs/neg/maximum, a masked count and shifts.
# expect-inputs: 3
# expect-outputs: 5
# expect-ops: binary=10 unary=3 ternary=1 cast=1 reduction=1
import torch
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.from_pytorch(inputs[2])
    total = fd.ops.add(t0, t1)
    rem = fd.ops.remainder(t0, t1)
    blocks = fd.ops.ceilDiv(t0, 4)
    prod = fd.ops.mul(rem, blocks)
    positive = fd.ops.gt(t0, 0)
    keep = fd.ops.logical_and(positive, t2)
    either = fd.ops.logical_or(keep, fd.ops.logical_not(t2))
    picked = fd.ops.where(keep, prod, total)
    neg = fd.ops.neg(t1)
    mag = fd.ops.abs(t0)
    top = fd.ops.maximum(mag, neg)
    count = fd.ops.sum(fd.ops.cast(either, dtype=DataType.Int32), dims=[1])
    low_bits = fd.ops.bitwise_and(t0, 7)
    shifted = fd.ops.bitwise_left_shift(low_bits, 2)
    fd.add_output(picked)
    fd.add_output(top)
    fd.add_output(count)
    fd.add_output(shifted)
    fd.add_output(either)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randint(-20, 20, (5, 7), device="cuda"),
    torch.randint(1, 9, (5, 7), dtype=torch.int32, device="cuda"),
    torch.randint(0, 2, (5, 7), device="cuda").bool(),
]

fd.execute(inputs)
