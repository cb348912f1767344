# nvFuser-test style: batch norm forward (training) of a channels-last NCHW
# input read with from_pytorch: per-channel mean and biased variance over
# N, H, W, the affine transform, and the running mean updated in place.
# expect-inputs: 4
# expect-outputs: 4
# expect-ops: var_mean=1 unary=1 binary=8 broadcast=4
import torch
from nvfuser import FusionDefinition, DataType

MOMENTUM = 0.1
EPS = 1e-5
CHANNEL_BCAST = [True, False, True, True]


def fusion_func(fd: FusionDefinition) -> None:
    x = fd.from_pytorch(inputs[0])
    weight = fd.from_pytorch(inputs[1])
    bias = fd.from_pytorch(inputs[2])
    running_mean = fd.from_pytorch(inputs[3])
    var, mean = fd.ops.var_mean(x, dims=[0, 2, 3], correction=0, keepdim=False)
    rstd = fd.ops.rsqrt(fd.ops.add(var, EPS))
    mean_b = fd.ops.broadcast(mean, is_broadcast_dim=CHANNEL_BCAST)
    rstd_b = fd.ops.broadcast(rstd, is_broadcast_dim=CHANNEL_BCAST)
    w_b = fd.ops.broadcast(weight, is_broadcast_dim=CHANNEL_BCAST)
    b_b = fd.ops.broadcast(bias, is_broadcast_dim=CHANNEL_BCAST)
    x_hat = fd.ops.mul(fd.ops.sub(x, mean_b), rstd_b)
    y = fd.ops.add(fd.ops.mul(x_hat, w_b), b_b)
    kept = fd.ops.mul(running_mean, 1.0 - MOMENTUM)
    new_running_mean = fd.ops.add(kept, fd.ops.mul(mean, MOMENTUM))
    fd.add_output(y)
    fd.add_output(new_running_mean, alias_input=running_mean)
    fd.add_output(mean)
    fd.add_output(rstd)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(2, 8, 4, 4, device="cuda").to(memory_format=torch.channels_last),
    torch.randn(8, device="cuda"),
    torch.randn(8, device="cuda"),
    torch.zeros(8, device="cuda"),
]

fd.execute(inputs)
