# slice (with and without strides, with a symbolic end), pad with and without
# a value, and cat along a negative dim.
# expect-inputs: 2
# expect-outputs: 3
# expect-ops: slice=3 pad=2 cat=1
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[4, 6], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    S2 = T0.size(1)
    T3 = fd.ops.slice(T0, start_indices=[0, 1], end_indices=[2, S2], strides=[1, 2])
    T4 = fd.ops.slice(T1, [0, 0], [4, 3])
    T5 = fd.ops.slice(T1, start_indices=[0, 3], end_indices=[4, 6], strides=[1, 1], manual_normalization=0)
    T6 = fd.ops.cat([T5, T4], dim=-1, manual_padding=0)
    S7 = fd.define_scalar(1.5, dtype=DataType.Double)
    T8 = fd.ops.pad(T0, [1, 2, 0, 1], S7)
    T9 = fd.ops.pad(T6, pad_widths=[2, 2])
    fd.add_output(T3)
    fd.add_output(T8)
    fd.add_output(T9)

inputs = [
    torch.randn(3, 5, device="cuda"),
    torch.randn(4, 6, dtype=torch.bfloat16, device="cuda"),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
