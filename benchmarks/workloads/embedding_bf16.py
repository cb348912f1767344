# An embedding lookup as Thunder writes it for nvFuser: rows of a bfloat16
# [16384, 4096] table at int64 ids, scaled (the input embedding of a model
# whose embeddings are multiplied by sqrt(hidden)). The ids visit every row
# once, in reverse, so the bytes moved are the table, the ids and the output.
# torch_indexing.py's embedding_bf16 is the same math.
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id7(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T2 = fd.ops.embedding_fwd(T0, T1, None, None, None, None, None)
    T3 = fd.ops.cast(T2, dtype=DataType.Float)
    S4 = fd.define_scalar(64.0, dtype=DataType.Double)
    T5 = fd.ops.mul(T3, S4)
    T6 = fd.ops.cast(T5, dtype=DataType.BFloat16)
    fd.add_output(T6)

with FusionDefinition() as fd:
    nvfuser_fusion_id7(fd)

inputs = [
    torch.arange(16383, -1, -1, dtype=torch.int64, device='cuda:0'),
    torch.randn(16384, 4096, dtype=torch.bfloat16, device='cuda:0'),
]
fd.execute(inputs)
