# nvFuser-test style: welford over the rows of a double tensor next to var
# with and without Bessel's correction; var_sum / n from welford is compared
# with var(correction=0), and a keepdim column variance feeds a sqrt.
# expect-inputs: 1
# expect-outputs: 5
# expect-ops: welford=1 var=2 broadcast=1 binary=2 unary=1
import torch
from nvfuser import FusionDefinition, DataType


def fusion_func(fd: FusionDefinition) -> None:
    t0 = fd.from_pytorch(inputs[0])
    avg, var_sum, n = fd.ops.welford(t0, dims=[1])
    biased = fd.ops.var(t0, dims=[1], correction=0)
    columns = fd.ops.var(t0, dims=[0], correction=1, keepdim=True)
    from_welford = fd.ops.div(var_sum, n)
    diff = fd.ops.sub(from_welford, biased)
    std = fd.ops.sqrt(columns)
    fd.add_output(avg)
    fd.add_output(from_welford)
    fd.add_output(diff)
    fd.add_output(std)
    fd.add_output(n)


with FusionDefinition() as fd:
    fusion_func(fd)

inputs = [
    torch.randn(6, 50, dtype=torch.float64, device="cuda"),
]

fd.execute(inputs)
