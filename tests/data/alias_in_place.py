# nvFuser's in-place update (issue 8): T1 = exp(T0) is written into T0 when the
# fusion completes; T2 = T0 + T1 reads T0 as it was before the call, and the
# sum reads it in another segment. `fusebox run --validate` compares with the
# evaluator run on the inputs as they were before the (last) run.
from nvfuser import FusionDefinition, DataType
import torch

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.exp(T0)
    T2 = fd.ops.add(T0, T1)
    T3 = fd.ops.sum(T0, dims=[1])
    fd.add_output(T1, alias_input=T0)
    fd.add_output(T2)
    fd.add_output(T3)

inputs = [torch.zeros(4, 8, dtype=torch.float32, device="cuda:0")]
