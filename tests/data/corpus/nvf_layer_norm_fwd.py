# nvFuser-test style: layer norm forward over the last dim (var_mean with no
# correction, rsqrt, affine weight and bias), returning out, mean and rstd.
# expect-inputs: 3
# expect-outputs: 3
# expect-ops: var_mean=1 binary=5 unary=1 broadcast=4 expand=4
import torch
from nvfuser import FusionDefinition, DataType

EPS = 1e-5
NORM_DIMS = [1]


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    weight = fd.from_pytorch(inputs[1])
    bias = fd.from_pytorch(inputs[2])
    var, mean = fd.ops.var_mean(t0, dims=NORM_DIMS, correction=0, keepdim=False)
    eps = fd.define_scalar(EPS, dtype=DataType.Double)
    var_eps = fd.ops.add(var, eps)
    rstd = fd.ops.rsqrt(var_eps)
    mean_b = fd.ops.broadcast_in_dim(mean, shape=t0.shape(), broadcast_dims=[0])
    rstd_b = fd.ops.broadcast_in_dim(rstd, shape=t0.shape(), broadcast_dims=[0])
    x_hat = fd.ops.mul(fd.ops.sub(t0, mean_b), rstd_b)
    w_b = fd.ops.broadcast_in_dim(weight, shape=t0.shape(), broadcast_dims=[1])
    b_b = fd.ops.broadcast_in_dim(bias, shape=t0.shape(), broadcast_dims=[1])
    out = fd.ops.add(fd.ops.mul(x_hat, w_b), b_b)
    fd.add_output(out)
    fd.add_output(mean)
    fd.add_output(rstd)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(16, 64, device="cuda"),
    torch.randn(64, device="cuda"),
    torch.randn(64, device="cuda"),
]

fd.execute(inputs)
