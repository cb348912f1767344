# Broadcast-heavy: out[i, j, k] = x[i, j, k] * scale[j, 1] + shift[1, k] - row[i, 1, 1],
# on 64x1024x1024 float32; three broadcast operands along different dims.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T3 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    V4 = T0.shape()
    T5 = fd.ops.broadcast_in_dim(T1, shape=V4, broadcast_dims=[1])
    T6 = fd.ops.broadcast_in_dim(T2, shape=V4, broadcast_dims=[2])
    T7 = fd.ops.broadcast_in_dim(T3, shape=V4, broadcast_dims=[0])
    T8 = fd.ops.mul(T0, T5)
    T9 = fd.ops.add(T8, T6)
    T10 = fd.ops.sub(T9, T7)
    fd.add_output(T10)

inputs = [
    torch.randn(64, 1024, 1024, device="cuda"),
    torch.randn(1024, device="cuda"),
    torch.randn(1024, device="cuda"),
    torch.randn(64, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
