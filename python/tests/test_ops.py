"""Fusions defined in Python and run on torch tensors, each checked against
eager torch computing the same math."""

import pytest
import torch

from fusebox import DataType, FusionDefinition
from conftest import tolerance


def test_pointwise_float(device):
    x = torch.randn(33, 65, device=device)
    y = torch.randn(33, 65, device=device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        t1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        t2 = fd.ops.mul(fd.ops.exp(t0), t1)
        t3 = fd.ops.add(t2, 0.5)
        fd.add_output(t3)
    (out,) = fd.execute([x, y])
    assert out.device.type == device and out.shape == (33, 65) and out.dtype == torch.float32
    rtol, atol = tolerance(torch.float32)
    torch.testing.assert_close(out, torch.exp(x) * y + 0.5, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype,nv", [(torch.bfloat16, DataType.BFloat16),
                                      (torch.float16, DataType.Half)])
def test_half_types_compute_in_float(device, dtype, nv):
    x = torch.randn(7, 129, device=device).to(dtype)
    b = torch.randn(129, device=device).to(dtype)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=nv)
        t1 = fd.define_tensor(shape=[-1], dtype=nv)
        t2 = fd.ops.broadcast_in_dim(t1, shape=t0.shape(), broadcast_dims=[1])
        t3 = fd.ops.cast(fd.ops.add(fd.ops.cast(t0, DataType.Float), fd.ops.cast(t2, DataType.Float)), nv)
        fd.add_output(fd.ops.relu(t3))
    (out,) = fd.execute([x, b])
    # (torch 1.13 has no CPU relu for float16: relu commutes with the rounding.)
    expected = torch.relu(x.float() + b.float()).to(dtype)
    assert out.dtype == dtype
    rtol, atol = tolerance(dtype)
    torch.testing.assert_close(out, expected, rtol=rtol, atol=atol)


def test_sum_and_scalar_input(device):
    x = torch.randn(16, 512, device=device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        s = fd.define_scalar(DataType.Double)
        t1 = fd.ops.mul(t0, s)
        fd.add_output(fd.ops.sum(t1, dims=[1]))
    (out,) = fd.execute([x, 0.25])
    rtol, atol = tolerance(torch.float32, accumulated=512)
    torch.testing.assert_close(out, (x * 0.25).sum(1), rtol=rtol, atol=atol)
    # Another value of the scalar: the same fusion, another result.
    (out2,) = fd.execute([x, 2.0])
    torch.testing.assert_close(out2, (x * 2.0).sum(1), rtol=rtol, atol=atol * 8)
    # numpy's float32 is a number too.
    np = pytest.importorskip("numpy")
    (out3,) = fd.execute([x, np.float32(0.5)])
    torch.testing.assert_close(out3, (x * 0.5).sum(1), rtol=rtol, atol=atol * 2)


def test_var_mean_returns_two_tensors(device):
    x = torch.randn(8, 300, device=device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        var, mean = fd.ops.var_mean(t0, dims=[1], correction=1)
        fd.add_output(var)
        fd.add_output(mean)
    var, mean = fd.execute([x])
    ev, em = torch.var_mean(x, dim=1, correction=1)
    rtol, atol = tolerance(torch.float32, accumulated=300)
    torch.testing.assert_close(mean, em, rtol=rtol, atol=atol)
    torch.testing.assert_close(var, ev, rtol=rtol, atol=atol)


def test_bool_and_int_outputs(device):
    x = torch.randn(5, 9, device=device)
    i = torch.randint(-5, 5, (5, 9), device=device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t1 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Int)
        fd.add_output(fd.ops.gt(t0, 0.0))
        fd.add_output(fd.ops.mul(t1, 3))
    mask, tripled = fd.execute([x, i])
    assert mask.dtype == torch.bool and torch.equal(mask, x > 0)
    assert tripled.dtype == torch.int64 and torch.equal(tripled, i * 3)


def test_non_contiguous_input_as_declared(device):
    base = torch.randn(12, 10, device=device)
    x = base.t()  # strides (1, 10)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float,
                              stride_order=[0, 1])
        fd.add_output(fd.ops.neg(t0))
    (out,) = fd.execute([x])
    assert torch.equal(out, -x)


def test_output_view_shares_the_input(device):
    x = torch.randn(4, 6, device=device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        fd.add_output(fd.ops.permute(t0, dims=[1, 0]))
    (out,) = fd.execute([x])
    assert torch.equal(out, x.t())
    # A no_op view, as torch's own permute: it shares the input's memory.
    x[0, 0] = 42.0
    assert out[0, 0].item() == 42.0


def test_alias_input_updates_in_place_and_is_not_returned(device):
    p = torch.randn(64, 32, device=device)
    g = torch.randn(64, 32, device=device)
    before = p.clone()
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t1 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t2 = fd.ops.sub(t0, fd.ops.mul(t1, 0.1))
        fd.add_output(t2, alias_input=t0)
        fd.add_output(fd.ops.sum(t0, dims=[0, 1]))
    outs = fd.execute([p, g])
    assert len(outs) == 1  # the aliased output is written into p, not returned
    rtol, atol = tolerance(torch.float32, accumulated=64 * 32)
    # Every read of p inside the fusion saw its old value.
    torch.testing.assert_close(outs[0], before.sum(), rtol=rtol, atol=atol)
    torch.testing.assert_close(p, before - g * 0.1, rtol=1e-6, atol=1e-6)


def test_scalar_output_is_a_zero_dim_tensor(device):
    x = torch.randn(3, 4, device=device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        fd.add_output(fd.ops.mul(t0.size(1), 2))
    (out,) = fd.execute([x])
    assert out.dim() == 0 and out.item() == 8


def test_from_pytorch_and_define_vector(device):
    x = torch.randn(6, 10, device=device)
    with FusionDefinition() as fd:
        t0 = fd.from_pytorch(x)
        n = fd.define_vector(2)  # nvfuser_direct: two symbolic int inputs
        t1 = fd.ops.reshape(t0, new_shape=n)
        fd.add_output(t1)
    (out,) = fd.execute([x, 3, 20])
    assert torch.equal(out, x.reshape(3, 20))
    # numpy's integers are integers (a shape computed with numpy).
    np = pytest.importorskip("numpy")
    (out,) = fd.execute([x, np.int64(4), np.int32(15)])
    assert torch.equal(out, x.reshape(4, 15))


def test_dims_and_shape_queries():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, 1, -1], dtype=DataType.Float)
        assert t0.ndim == 3
        shape = t0.shape()
        assert len(shape) == 3
        assert repr(t0) == "T0"
        assert t0.dtype() == DataType.Float
        fd.add_output(fd.ops.sum(t0, dims=[2]))


def test_erfcinv(device):
    # Where 1 - x is exact (x in [0.5, 1.5]), erfcinv(x) == erfinv(1 - x).
    x = torch.linspace(0.5, 1.5, 257, device=device, dtype=torch.float64)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1], dtype=DataType.Double)
        fd.add_output(fd.ops.erfcinv(t0))
    (out,) = fd.execute([x])
    torch.testing.assert_close(out, torch.erfinv(1 - x), rtol=1e-14, atol=1e-15)
    # The tail, where 1 - x would round to 1: erfc(erfcinv(x)) == x.
    tail = torch.tensor([1e-300, 1e-100, 1e-20, 1e-8], device=device, dtype=torch.float64)
    (y,) = fd.execute([tail])
    # erfc's relative slope is 2y: a few ulp of y are ~2y^2 ulp of erfc(y).
    rtol = float((1e-15 * (4 + 8 * y * y)).max())
    torch.testing.assert_close(torch.special.erfc(y), tail, rtol=rtol, atol=0)


def _distinct(shape, device, dtype=torch.float32):
    # Distinct quarters around 0, exact in bfloat16 for up to 512 elements: no
    # ties, so torch's order is the only one.
    n = 1
    for d in shape:
        n *= d
    return ((torch.randperm(n, device=device).reshape(shape) - n // 2) * 0.25).to(dtype)


@pytest.mark.parametrize("descending", [False, True])
def test_argsort_of_computed_values(device, descending):
    x = _distinct((6, 37), device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t1 = fd.ops.mul(t0, 2.0)
        fd.add_output(fd.ops.argsort(t1, dim=1, descending=descending))
        fd.add_output(fd.ops.argsort(t0, 0, descending=descending, stable=True))
    rows, cols = fd.execute([x])
    assert rows.dtype == torch.int64 and rows.device.type == device
    torch.testing.assert_close(rows, torch.argsort(x * 2.0, dim=1, descending=descending), rtol=0, atol=0)
    torch.testing.assert_close(cols, torch.argsort(x, dim=0, descending=descending), rtol=0, atol=0)
    # Ties: fusebox always sorts stably, as torch's stable sort does.
    ties = torch.tensor([[2, 1, 2, 1, 3, 2]], device=device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Int)
        fd.add_output(fd.ops.argsort(t0, dim=-1, descending=descending))
    (out,) = fd.execute([ties])
    expected = torch.sort(ties.cpu(), dim=-1, descending=descending, stable=True).indices
    assert out.cpu().tolist() == expected.tolist()


@pytest.mark.parametrize("dtype,nv", [(torch.float32, DataType.Float),
                                      (torch.bfloat16, DataType.BFloat16),
                                      (torch.int32, DataType.Int32)])
def test_topk_values_and_indices(device, dtype, nv):
    x = _distinct((9, 50), device, dtype=torch.float64)
    x = (x * 4).to(dtype) if dtype == torch.int32 else x.to(dtype)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=nv)
        k = fd.define_scalar(DataType.Int)
        values, indices = fd.ops.topk(t0, k, dim=-1, largest=True, sorted=True)
        low, low_at = fd.ops.topk(t0, 2, 0, largest=False)
        fd.add_output(values)
        fd.add_output(indices)
        fd.add_output(low)
        fd.add_output(low_at)
    v, i, lv, li = fd.execute([x, 5])
    ev, ei = torch.topk(x.cpu().double(), 5, dim=-1, largest=True, sorted=True)
    assert v.dtype == dtype and v.shape == (9, 5) and i.dtype == torch.int64
    assert v.cpu().double().tolist() == ev.tolist() and i.cpu().tolist() == ei.tolist()
    elv, eli = torch.topk(x.cpu().double(), 2, dim=0, largest=False, sorted=True)
    assert lv.cpu().double().tolist() == elv.tolist() and li.cpu().tolist() == eli.tolist()
    # Another k: the same fusion, outputs of another size.
    v3, i3, _, _ = fd.execute([x, 3])
    assert v3.shape == (9, 3) and v3.cpu().double().tolist() == ev[:, :3].tolist()


def test_topk_k_out_of_range_is_an_error(device):
    from fusebox import FuseboxError
    x = torch.randn(4, 6, device=device)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        k = fd.define_scalar(DataType.Int)
        values, _ = fd.ops.topk(t0, k)
        fd.add_output(values)
    with pytest.raises(FuseboxError, match=r"k is 7 but dim 1 of"):
        fd.execute([x, 7])
    (out,) = fd.execute([x, 6])  # the cache stays usable
    assert out.shape == (4, 6)
    with pytest.raises(FuseboxError, match=r"fd.ops.topk: k is 9 but dim 0 of"):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[4, 6], dtype=DataType.Float)
            fd.ops.topk(t0, 9, dim=0)


def test_in_place_update_is_seen_by_autograd(device):
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)
        fd.add_output(fd.ops.add(t0, 1.0), alias_input=t0)
    w = torch.ones(3, device=device, requires_grad=True)
    y = w.exp()  # exp saves its output for backward
    before = y._version
    fd.execute([y.detach()])
    assert y._version > before
    # As after torch's own y.detach().add_(1): backward refuses the changed tensor.
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_device_without_tensor_inputs(device):
    with FusionDefinition() as fd:
        s = fd.define_scalar(DataType.Double)
        fd.add_output(fd.ops.full(shape=[4], fill_value=s, dtype=DataType.Float))
    (out,) = fd.execute([2.5], device=device)
    assert out.device.type == device
    assert torch.equal(out.cpu(), torch.full((4,), 2.5))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_memory_reused_on_another_stream_waits_for_its_own():
    import fusebox

    if not fusebox.cuda_available()[0]:
        pytest.skip("fusebox sees no GPU")
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)
        fd.add_output(fd.ops.mul(t0, 2.0))
    a = torch.ones(1 << 20, device="cuda")
    b = torch.full_like(a, 7.0)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    s1.wait_stream(torch.cuda.current_stream())
    s2.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s1):
        first = fd.execute([a])[0]
    with torch.cuda.stream(s2):
        fd.execute([a])
    with torch.cuda.stream(s1):
        torch.cuda._sleep(200_000_000)  # the clone below runs long after
        kept = first.clone()
        del first  # its block goes back to fusebox while s1 still reads it
    with torch.cuda.stream(s2):
        fd.execute([b])  # may take that block: must wait for s1 first
    torch.cuda.synchronize()
    assert torch.all(kept == 2.0)
