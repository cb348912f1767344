"""fusebox from Python: define a fusion as nvFuser's Python frontend does,
run it on torch tensors, check it against eager torch, and look at what
fusebox made of it (segments, schedulers, the generated kernel).

After the README's build command:
    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/softmax.py
CPU tensors run on fusebox's host backend; on a machine with a GPU, pass
--cuda to run on CUDA tensors."""

import sys

import torch

from fusebox import DataType, FusionDefinition

device = "cuda" if "--cuda" in sys.argv else "cpu"

# softmax over the rows of x (bf16 in, computed in float), scaled by a scalar
# input, returned in bf16 together with the row maxima.
with FusionDefinition() as fd:
    x = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
    scale = fd.define_scalar(DataType.Double)
    xf = fd.ops.cast(x, DataType.Float)
    row_max = fd.ops.max(xf, dims=[1], keepdim=True)
    shifted = fd.ops.sub(xf, row_max)
    e = fd.ops.exp(shifted)
    total = fd.ops.sum(e, dims=[1], keepdim=True)
    y = fd.ops.mul(fd.ops.div(e, total), scale)
    fd.add_output(fd.ops.cast(y, DataType.BFloat16))
    fd.add_output(fd.ops.squeeze(row_max, dims=[1]))

print("the definition, printed back:")
print(fd)

inputs = [torch.randn(256, 1000, device=device).to(torch.bfloat16), 0.5]
probabilities, maxima = fd.execute(inputs)

expected = (torch.softmax(inputs[0].float(), dim=1) * 0.5).to(torch.bfloat16)
torch.testing.assert_close(probabilities, expected, rtol=2**-7, atol=2**-7)
torch.testing.assert_close(maxima, inputs[0].float().amax(dim=1))
print(f"outputs: {tuple(probabilities.shape)} {probabilities.dtype}, "
      f"{tuple(maxima.shape)} {maxima.dtype}; both match eager torch")

run = fd.last_run()
print(f"backend: {run['backend']}; segments and their schedulers: {fd.schedulers()}")
print(fd.last_segmentation())
name, source = fd.last_kernels()[0]
print(f"kernel {name} ({len(source.splitlines())} lines); its first lines:")
print("\n".join(source.splitlines()[:12]))
