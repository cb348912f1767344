# fusebox fuzz case, seed 33144262624462 (features: strided-input, scalar-ops, pad, binary, unary, slice, reduction, cat, ternary, symbolic-shape, masked, alias)
# fuzz-backend: host
# minimized; failure: runtime-rejects: host backend: kernel fusebox_inner_persistent_# does not compile; its source and the compiler's log are in /root/.cache/
# fuzz-exact: T5
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T1 = fd.define_tensor(shape=[8], contiguity=[True], dtype=DataType.Double, is_cpu=False)
    S2 = fd.ops.size(T1, dim=-1)
    T5 = fd.ops.isnan(T1)
    T6 = fd.ops.slice(T1, start_indices=[0], end_indices=[8], strides=[1])
    T7 = fd.ops.ne(T5, T6)
    T11 = fd.ops.ge(T7, T7)
    T15 = fd.ops.where(T7, float('-inf'), T6)
    T16 = fd.ops.max(T15, dims=[0], keepdim=True)
    T17 = fd.ops.exp(fd.ops.sub(T15, T16))
    T18 = fd.ops.sum(T17, dims=[0], keepdim=True)
    T20 = fd.ops.pad(T18, [2, 1], S2)
    T21 = fd.ops.where(T11, float('-inf'), T6)
    T22 = fd.ops.max(T21, dims=[0], keepdim=True)
    T23 = fd.ops.exp(fd.ops.sub(T21, T22))
    T24 = fd.ops.sum(T23, dims=[0], keepdim=True)
    T25 = fd.ops.div(T23, T24)
    fd.add_output(T25)
    fd.add_output(T20)

inputs = [
    torch.testing.make_tensor((8,), dtype=torch.float64, device='cuda:0', low=-100, high=100),
]

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

fd.execute(inputs)
