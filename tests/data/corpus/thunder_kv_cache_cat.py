# Thunder style: a KV-cache step in bf16: the new key [1, 2, 1, 8] cat to the
# cached keys [1, 2, 6, 8] along the sequence, the oldest position sliced off
# (a sliding window), and the new key zero-padded to the window's length.
# expect-inputs: 2
# expect-outputs: 2
# expect-ops: cat=1 slice=1 pad=1 cast=3 binary=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id70(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[1, -1, -1, -1], contiguity=[None, True, True, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T1 = fd.define_tensor(shape=[1, -1, 1, -1], contiguity=[None, True, None, True], dtype=DataType.BFloat16, is_cpu=False, stride_order=[3, 2, 1, 0])
    T2 = fd.ops.cat([T0, T1], dim=2, manual_padding=0)
    T3 = fd.ops.slice(T2, start_indices=[0, 0, 1, 0], end_indices=[1, 2, 7, 8], strides=[1, 1, 1, 1], manual_normalization=0)
    S4 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T5 = fd.ops.pad(T1, [0, 0, 0, 5, 0, 0, 0, 0], S4)
    T6 = fd.ops.cast(T3, dtype=DataType.Float)
    T7 = fd.ops.cast(T5, dtype=DataType.Float)
    T8 = fd.ops.add(T6, T7)
    T9 = fd.ops.cast(T8, dtype=DataType.BFloat16)
    fd.add_output(T3)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id70(fd)

inputs = [
    torch.randn(1, 2, 6, 8, dtype=torch.bfloat16, device="cuda"),
    torch.randn(1, 2, 1, 8, dtype=torch.bfloat16, device="cuda"),
]
fd.execute(inputs)
