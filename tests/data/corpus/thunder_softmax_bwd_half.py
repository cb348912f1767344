# Thunder style: softmax backward in half precision, [12, 40]:
# y * (grad - sum(grad * y, dim=1)), computed in float.
# expect-inputs: 2
# expect-outputs: 1
# expect-ops: cast=3 binary=3 reduction=1 broadcast=1 expand=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id44(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.cast(T0, dtype=DataType.Float)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.mul(T2, T3)
    T5 = fd.ops.sum(T4, dims=[1], keepdim=False, dtype=DataType.Null)
    T6 = fd.ops.broadcast_in_dim(T5, shape=[12, 40], broadcast_dims=[0])
    T7 = fd.ops.sub(T2, T6)
    T8 = fd.ops.mul(T3, T7)
    T9 = fd.ops.cast(T8, dtype=DataType.Half)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id44(fd)

inputs = [
    torch.randn(12, 40, dtype=torch.float16, device="cuda"),
    torch.rand(12, 40, dtype=torch.float16, device="cuda"),
]
fd.execute(inputs)
