"""Every test that takes `device` runs on CPU tensors (fusebox's host
backend) and, where torch sees a GPU and fusebox can use it, on CUDA tensors."""

import pytest
import torch

import fusebox

_DEVICES = ["cpu"]
if torch.cuda.is_available() and fusebox.cuda_available()[0]:
    _DEVICES.append("cuda")


@pytest.fixture(params=_DEVICES)
def device(request):
    return request.param


def tolerance(dtype, accumulated=1):
    """(rtol, atol) for an output of `dtype` computed in float32 by both
    sides: one rounding to a 16-bit dtype may land on either neighbour (one
    ulp); float32 math differs by a few ulp per op; a sum of `accumulated`
    terms of size ~1 by up to ~eps * accumulated in absolute terms."""
    eps = {torch.float32: 2.0**-23, torch.float64: 2.0**-52, torch.float16: 2.0**-10,
           torch.bfloat16: 2.0**-7}[dtype]
    if dtype in (torch.float16, torch.bfloat16):
        return eps, eps
    return 8 * eps, 8 * eps * accumulated
