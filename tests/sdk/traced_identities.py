# Traced code that scales by 1.0 and adds zero biases: fold_identities
# (plugins/fold_identities) removes the mul, the div and the sub; the float
# add of 0.0 stays (-0.0 + 0.0 is +0.0), and so does the int32 * 1.0 (its
# result is float).
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Int32, is_cpu=False)
    S2 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T3 = fd.ops.mul(T0, S2)
    T4 = fd.ops.div(T3, S2)
    S5 = fd.define_scalar(0.00000, dtype=DataType.Double)
    T6 = fd.ops.sub(T4, S5)
    T7 = fd.ops.add(T6, S5)
    T8 = fd.ops.mul(T1, S2)
    T9 = fd.ops.add(T7, T8)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((64, 256), dtype=torch.bfloat16, device='cuda:0'),
    torch.randint(-8, 8, (64, 256), dtype=torch.int32, device='cuda:0'),
]
fd.execute(inputs)
