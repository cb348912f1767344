# Module-level constants and reads of the inputs list inside the definition:
# sizes from inputs[i].shape and .stride(), arithmetic on constants, *args,
# define_scalar() with nothing (a Double input), torch.arange and torch.tensor
# inputs, an int index and a slice of a tensor, and a bool cast.
# expect-inputs: 4
# expect-outputs: 2
# expect-ops: binary=2 broadcast=2 cast=1 expand=1 reduction=1 ternary=2
import torch
from nvfuser import FusionDefinition, DataType

LOW_VAL = -1
HIGH_VAL = LOW_VAL + 2 ** 2
REDUCE_DIMS = (0,)

def fusion_func(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(sizes=inputs[0].shape, strides=inputs[0].stride(), dtype=DataType.Int)
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.from_pytorch(inputs[2])
    S3 = fd.define_scalar()
    T4 = fd.ops.cast(T0, dtype=DataType.Float)
    T5 = fd.ops.clamp(T4, LOW_VAL, HIGH_VAL)
    T6 = fd.ops.broadcast_in_dim(T1, inputs[2].size(), [1])
    T7 = fd.ops.mul(*[T5, T6])
    T8 = fd.ops.where(T2, T7, S3)
    T9 = fd.ops.sum(T8, dims=REDUCE_DIMS)
    T10 = fd.ops.add(T9, T6)
    fd.add_output(T10)
    fd.add_output(T8)

with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.arange(-2, 4, device="cuda").reshape(2, 3),
    torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device="cuda")[1],
    torch.tensor([[0, 3, 1], [2, 0, 5]], device="cuda").bool(),
    0.25,
]

fd.execute(inputs)
