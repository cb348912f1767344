# Reshape with an inferred -1, with extents read through size(), shape() and a
# define_vector; permute.
# expect-inputs: 1
# expect-outputs: 3
# expect-ops: reshape=3 permute=1 binary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    S1 = T0.size(0)
    V2 = T0.shape()
    S3 = fd.ops.mul(V2[1], V2[2])
    T4 = fd.ops.reshape(T0, new_shape=[S1, S3])
    T5 = fd.ops.permute(T4, dims=[1, 0])
    T6 = fd.ops.reshape(T5, new_shape=[-1])
    V7 = fd.define_vector([S1, V2[1], V2[2]], dtype=DataType.Int)
    T8 = fd.ops.reshape(T4, new_shape=V7)
    fd.add_output(T5)
    fd.add_output(T6)
    fd.add_output(T8)

inputs = [
    torch.randn(2, 3, 4, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
