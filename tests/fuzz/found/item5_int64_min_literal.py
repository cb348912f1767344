# Issue 8 item 5, found by fusebox_fuzz (seed 3006477109700, minimized, then by
# hand). The literal INT64_MIN (written -9223372036854775807 - 1) becomes
# `(-9223372036854775807ll - 1)` in the kernel: a long long beside int64_t
# (long), so `fusebox::op::threshold(v, (-9223372036854775807ll - 1), s)`
# has no matching overload and the kernel does not compile (exit 1 on the
# host backend; the evaluator runs it).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int, is_cpu=False)
    T1 = fd.ops.threshold(T0, (-9223372036854775807 - 1), 3)
    fd.add_output(T1)

inputs = [
    torch.testing.make_tensor((3, 2), dtype=torch.int64, device='cuda:0'),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
