# Issue 8 item 10 (messages that name neither file:line:col nor the input),
# found by fusebox_fuzz parsers --message-checks (mutation 4359 of seed 1,
# minimized by hand). An as_strided view whose last stride is INT64_MAX is
# accepted by the reader; making the input then fails with
#   error: tensor extent overflows int64
# which names neither the input (T0) nor the inputs-list entry (line 15).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[False, False, False], dtype=DataType.Float, is_cpu=False)
    fd.add_output(T0)

inputs = [
    torch.randn(28, dtype=torch.float32, device="cuda:0").as_strided((2, 3, 4), (1, 10, 9223372036854775807)),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
