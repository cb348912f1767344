# The body written directly inside the with block (no function), the inputs
# list after it, an execute loop and a print, all at the top level.
# expect-inputs: 2
# expect-outputs: 1
# expect-ops: binary=2 unary=1 reduction=1
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(8, 16, device="cuda"),
    torch.randn(8, 16, device="cuda"),
]

with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    t1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    c0 = fd.define_scalar(3.0)
    t2 = fd.ops.add(t0, t1)
    t3 = fd.ops.mul(t2, c0)
    t4 = fd.ops.relu(t3)
    t5 = fd.ops.sum(t4, dims=[1])
    fd.add_output(t5)

for _ in range(2):
    out = fd.execute(inputs)
print(out[0])
