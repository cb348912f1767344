# Tensor factories: full, iota, uniform and normal (with and without an RNG
# seed), rand_like and randn_like.
# expect-inputs: 2
# expect-outputs: 6
# expect-ops: full=1 iota=1 rand=4 binary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    S1 = fd.define_scalar(None, dtype=DataType.Int)
    S2 = T0.size(0)
    S3 = fd.define_scalar(2.5, dtype=DataType.Float)
    T4 = fd.ops.full(shape=[S2, 3], fill_value=S3, dtype=DataType.Float)
    S5 = fd.define_scalar(0, dtype=DataType.Int)
    S6 = fd.define_scalar(2, dtype=DataType.Int)
    T7 = fd.ops.iota(S1, S5, S6, dtype=DataType.Int)
    S8 = fd.define_scalar(-1.0, dtype=DataType.Double)
    S9 = fd.define_scalar(1.0, dtype=DataType.Double)
    T10 = fd.ops.uniform(S8, S9, shape=[2, S2], dtype=DataType.Float)
    S11 = fd.define_scalar(42, dtype=DataType.Int)
    S12 = fd.define_scalar(7, dtype=DataType.Int)
    T13 = fd.ops.normal(S8, S9, shape=[S1], dtype=DataType.Double, rng_seed=S11, rng_offset=S12)
    T14 = fd.ops.rand_like(T0)
    T15 = fd.ops.randn_like(T0, rng_seed=S11, rng_offset=S12)
    T16 = fd.ops.add(T14, T15)
    fd.add_output(T4)
    fd.add_output(T7)
    fd.add_output(T10)
    fd.add_output(T13)
    fd.add_output(T16)
    fd.add_output(T14)

inputs = [
    torch.randn(3, 4, device="cuda"),
    5,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
