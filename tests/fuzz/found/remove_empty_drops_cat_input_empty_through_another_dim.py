# fusebox fuzz case, seed 154691837101412 (features: size0, scalar-input, binary, cat, permute, broadcast, unary, reduction, variance, expand, set, cast, matmul, output-stride-order)
# fuzz-backend: host
# minimized; failure: shape: output T#: got float[_]{strides _...}, expected float[_]{strides _...}
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Float, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Int32)
    T3 = fd.ops.pow(T0, S2)
    T4 = fd.ops.cat([T3, T0], dim=0)
    T5 = fd.ops.permute(T0, dims=[0, 1])
    T9 = fd.ops.sum(T4, dims=[-2, 1], keepdim=True, dtype=DataType.Float)
    T11 = fd.ops.expand(T9, shape=[2, 0])
    T12 = fd.ops.set(T11)
    T17 = fd.ops.cat([T11, T5, T12], dim=0)
    fd.add_output(T17, stride_order=[0, 1])

inputs = [
    torch.testing.make_tensor((8, 0), dtype=torch.float32, device='cuda:0', low=-3, high=3),
    1,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
