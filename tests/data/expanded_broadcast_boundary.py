# An expanded broadcast (T2) read by two segments: a pointwise kernel and the
# expr_eval reductions. Regression: it must cross the boundary as a stride-0 view.
import torch
from nvfuser import FusionDefinition, DataType
def f(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)
    T2 = fd.ops.broadcast_in_dim(T1, shape=T0.shape(), broadcast_dims=[1])
    T3 = fd.ops.mul(T2, T2)
    T4 = fd.ops.sum(T3, dims=[0])
    T5 = fd.ops.add(T0, T3)
    T6 = fd.ops.sum(T2, dims=[0])
    fd.add_output(T4)
    fd.add_output(T5)
    fd.add_output(T6)
inputs = [torch.randn(4, 6, device="cuda"), torch.randn(6, device="cuda")]
