# A channels-last (NHWC) input: allocation_order_inference lays the output out
# channels-last too, as a hint (compare the output strides with and without
# --disable-pass allocation_order_inference):
#   fusebox run examples/channels_last_relu.py --no-ir
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1], contiguity=[True, True, True, True], dtype=DataType.Float, is_cpu=False, stride_order=[3, 0, 2, 1])
    T1 = fd.ops.relu(T0)
    S2 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T3 = fd.ops.mul(T1, S2)
    fd.add_output(T3)

inputs = [
    torch.randn(120, device="cuda").as_strided((2, 3, 4, 5), (60, 1, 15, 3)),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

for _ in range(5):
    fd.execute(inputs)
