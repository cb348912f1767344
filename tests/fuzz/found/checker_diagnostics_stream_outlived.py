# fusebox fuzz case, seed 17179869185776 (features: strided-input, stride0-input, cast, squeeze, ternary, permute, unary, slice, reshape, scalar-ops, symbolic-shape, output-stride-order)
# fuzz-backend: eval
# minimized; failure: crash: signal 11 (Segmentation fault)
# fuzz-exact: T4 T8 T11
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, 1, -1], contiguity=[True, None, True], dtype=DataType.Int, is_cpu=False)
    T4 = fd.ops.squeeze(T0, dims=[1])
    T6 = fd.ops.permute(T4, dims=[1, 0])
    T8 = fd.ops.slice(T4, start_indices=[-2, 0], end_indices=[2, 3], strides=[2, 1])
    T11 = fd.ops.reshape(T6, new_shape=[-1])
    fd.add_output(T11)
    fd.add_output(T8, stride_order=[1, 0])

inputs = [
    torch.testing.make_tensor((9,), dtype=torch.int64, device='cuda:0', low=-2, high=2).as_strided((3, 1, 3), (3, 3, 1), 0),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
