# fd.from_pytorch over tensors of every layout the inputs list makes: a
# transpose, a slice with a step, an expanded (stride-0) dim, channels-last,
# a cast, a literal torch.tensor, and a number; the list comes after the
# `with` block, as in nvFuser's tests.
# expect-inputs: 7
# expect-outputs: 3
# expect-ops: binary=5 broadcast=1 cast=1 permute=1 reduction=1
import torch
from nvfuser import FusionDefinition, DataType

def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    t1 = fd.from_pytorch(inputs[1])
    t2 = fd.from_pytorch(inputs[2])
    t3 = fd.from_pytorch(inputs[3])
    t4 = fd.from_pytorch(inputs[4])
    t5 = fd.from_pytorch(inputs[5])
    s6 = fd.from_pytorch(inputs[6])
    t7 = fd.ops.add(t0, t1)
    t8 = fd.ops.mul(t7, t2)
    t9 = fd.ops.permute(t3, dims=[0, 2, 3, 1])
    t10 = fd.ops.sum(t9, dims=[1, 2], keepdim=False, dtype=DataType.Null)
    t11 = fd.ops.cast(t4, dtype=DataType.Float)
    t12 = fd.ops.broadcast(t5, is_broadcast_dim=[True, False])
    t13 = fd.ops.sub(t8, t12)
    t14 = fd.ops.mul(t11, s6)
    t15 = fd.ops.add(t14, t10)
    fd.add_output(t13)
    fd.add_output(t15)
    fd.add_output(t8)

with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(3, 4, device="cuda").t(),
    torch.randn(4, 6, device="cuda")[:, ::2],
    torch.randn(3, device="cuda").unsqueeze(0).expand(4, 3),
    torch.randn(2, 3, 4, 5, device="cuda").to(memory_format=torch.channels_last),
    torch.randint(0, 9, (2, 3), device="cuda").to(torch.float16),
    torch.tensor([0.5, -1.0, 2.0], device="cuda"),
    1.5,
]

fd.execute(inputs)
