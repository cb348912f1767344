# nvFuser-test style: position ids from a padding mask as HF models build
# them: cumsum of the int64 mask along the sequence minus one, padded slots
# set to 1 with where, a cummax of the masked ids and the valid-token count.
# expect-inputs: 1
# expect-outputs: 3
# expect-ops: scan=2 binary=3 ternary=1 reduction=1
import torch
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    mask = fd.from_pytorch(inputs[0])
    running = fd.ops.cumsum(mask, dim=1)
    ids = fd.ops.sub(running, 1)
    is_pad = fd.ops.eq(mask, 0)
    position_ids = fd.ops.where(is_pad, 1, ids)
    last = fd.ops.cummax(fd.ops.mul(position_ids, mask), dim=1)
    valid = fd.ops.sum(mask, dims=[1])
    fd.add_output(position_ids)
    fd.add_output(last)
    fd.add_output(valid)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.tensor([[0, 0, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1]], device="cuda"),
]

fd.execute(inputs)
