# nvFuser-test style: per-channel bias, scale and per-sample shift broadcast
# three ways (broadcast, expand of size-1 dims, broadcast_in_dim) into a
# [B, C, HW] activation of fixed shape, a keepdim sum, and the scale squeezed
# back to [C].
# expect-inputs: 4
# expect-outputs: 3
# expect-ops: broadcast=2 expand=2 binary=4 reduction=1 squeeze=1
import torch
from nvfuser import FusionDefinition, DataType

B = 2
C = 4
HW = 12
BCAST = [True, False, True]


def fusion_func(fd: FusionDefinition) -> None:
    x = fd.define_tensor(shape=[B, C, HW], contiguity=[True, True, True], dtype=DataType.Float)
    bias = fd.define_tensor(shape=[C], contiguity=[True], dtype=DataType.Float)
    scale = fd.define_tensor(shape=[1, C, 1], contiguity=[None, True, None], dtype=DataType.Float)
    shift = fd.define_tensor(shape=[B, 1, 1], contiguity=[True, None, None], dtype=DataType.Float)
    bias_b = fd.ops.broadcast(bias, is_broadcast_dim=BCAST)
    y0 = fd.ops.add(x, bias_b)
    scale_e = fd.ops.expand(scale, shape=[B, C, HW])
    y1 = fd.ops.mul(y0, scale_e)
    shift_b = fd.ops.broadcast_in_dim(shift, shape=[B, C, HW], broadcast_dims=[0, 1, 2])
    y2 = fd.ops.sub(y1, shift_b)
    s = fd.ops.sum(y2, dims=[2], keepdim=True)
    scale_c = fd.ops.squeeze(scale, dims=[0, 2])
    fused = fd.ops.add(scale_c, bias)
    fd.add_output(y2)
    fd.add_output(s)
    fd.add_output(fused)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(B, C, HW, device="cuda"),
    torch.randn(C, device="cuda"),
    torch.randn(1, C, 1, device="cuda"),
    torch.randn(B, 1, 1, device="cuda"),
]

fd.execute(inputs)
