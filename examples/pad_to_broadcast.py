# A pad that makes broadcast dims (nvFuser's ResizePadToBroadcastDynamic): the
# pad widths are scalar inputs, so which padded dims have size 1 (and then
# broadcast against T1) is only known from the inputs. Concretization decides
# it per call: `fusebox run examples/pad_to_broadcast.py --dump
# concretized_fusion`, and with `--no-concretize-resize-extents` the widths
# stay symbolic (docs/runtime.md, "Concretization").
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1, -1, -1, -1], contiguity=[False, False, False, False, False], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1, -1, -1, -1, -1], contiguity=[False, False, False, False, False], dtype=DataType.Float, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(None, dtype=DataType.Int)
    S4 = fd.define_scalar(None, dtype=DataType.Int)
    S5 = fd.define_scalar(None, dtype=DataType.Int)
    S6 = fd.define_scalar(None, dtype=DataType.Int)
    S7 = fd.define_scalar(None, dtype=DataType.Int)
    S8 = fd.define_scalar(None, dtype=DataType.Int)
    S9 = fd.define_scalar(None, dtype=DataType.Int)
    T10 = fd.ops.pad(T0, [S2, S3, S4, S5, S6, S7, S8, S9, 0, 0])
    T11 = fd.ops.mul(T1, T10)
    fd.add_output(T11)

inputs = [
    torch.randn(2, 3, 2, 5, 6, device="cuda"),
    torch.randn(2, 7, 4, 9, 5, device="cuda"),
    0, -1, 0, -4, 1, 1, -1, -1,
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
