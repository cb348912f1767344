"""Bad input gets a Python exception naming the argument and what was
expected (and the caller's file:line for definition calls); the cache stays
usable afterwards."""

import re

import pytest
import torch

import fusebox
from fusebox import DataType, FuseboxError, FusionDefinition

HERE = re.escape(__file__)


def _exp_fusion(contiguity=(True, True), dtype=DataType.Float):
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=list(contiguity), dtype=dtype)
        fd.add_output(fd.ops.exp(t0))
    return fd


def test_op_argument_error_names_this_line():
    with pytest.raises(FuseboxError, match=HERE + r":\d+: fd.ops.add takes 2 arguments, got 3"):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)
            fd.ops.add(t0, t0, t0)


def test_unexpected_keyword_lists_the_expected_ones():
    with pytest.raises(FuseboxError, match=r"unexpected keyword 'dimz' for fd.ops.sum \(expected: dims"):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
            fd.ops.sum(t0, dimz=[0])


def test_wrong_kind_of_argument():
    with pytest.raises(FuseboxError, match=r"S\d+ is a scalar, expected a tensor"):
        with FusionDefinition() as fd:
            s = fd.define_scalar(1.0)
            fd.ops.sum(s, dims=[0])


def test_python_object_a_definition_cannot_take():
    with pytest.raises(FuseboxError, match=r"argument 2 of fd.ops.add is a Python object"):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)
            fd.ops.add(t0, object())


def test_integer_beyond_int64():
    with pytest.raises(FuseboxError, match=r"integer 9223372036854775808 does not fit in int64"):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)
            fd.ops.add(t0, 2**63)


def test_unsupported_dtypes_are_named():
    with pytest.raises(FuseboxError, match=r"DataType.ComplexFloat: complex dtypes are not supported"):
        with FusionDefinition() as fd:
            fd.define_tensor(shape=[-1], dtype=DataType.ComplexFloat)
    with pytest.raises(FuseboxError, match=r"unsupported dtype DataType.Float8_e4m3fn"):
        with FusionDefinition() as fd:
            fd.define_tensor(shape=[-1], dtype=DataType.Float8_e4m3fn)


def test_unknown_and_refused_ops():
    with FusionDefinition() as fd:
        with pytest.raises(AttributeError, match="fd.ops has no op 'frobnicate'"):
            fd.ops.frobnicate
        with pytest.raises(FuseboxError, match="fd.ops.sdpfa_fwd: scaled dot-product attention is not supported"):
            fd.ops.sdpfa_fwd()
        t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)
        fd.add_output(t0)


def test_calls_outside_the_with_block():
    fd = FusionDefinition()
    with pytest.raises(FuseboxError, match="outside a `with FusionDefinition"):
        fd.define_tensor(shape=[-1])
    with pytest.raises(FuseboxError, match="fd.execute: the definition is not finished"):
        fd.execute([])
    fd = _exp_fusion()
    with pytest.raises(FuseboxError, match="after its `with` block"):
        fd.ops.exp(None)


def test_wrong_input_count():
    fd = _exp_fusion()
    with pytest.raises(FuseboxError, match=r"execute: the fusion takes 1 input \(T0\), got 2"):
        fd.execute([torch.randn(2, 2), torch.randn(2, 2)])


def test_wrong_dtype_rank_layout_and_kind():
    fd = _exp_fusion()
    with pytest.raises(FuseboxError, match=r"T0.*(dtype|float).*double|double.*T0"):
        fd.execute([torch.randn(2, 3, dtype=torch.float64)])
    with pytest.raises(FuseboxError, match=r"T0.*(rank|dims)"):
        fd.execute([torch.randn(2, 3, 4)])
    with pytest.raises(FuseboxError, match=r"T0.*contig"):
        fd.execute([torch.randn(6, 4).t()])
    with pytest.raises(FuseboxError, match=r"input 0 \(T0\) is a Python str, expected a torch tensor or a number"):
        fd.execute(["x"])
    with pytest.raises(FuseboxError, match=r"complex64 has no fusebox dtype|dtype complex64"):
        fd.execute([torch.randn(2, 3, dtype=torch.complex64)])
    with pytest.raises(FuseboxError, match="execute takes a list of inputs"):
        fd.execute(torch.randn(2, 3))
    # The cache is still usable: the same fusion runs on good inputs.
    x = torch.randn(2, 3)
    (out,) = fd.execute([x])
    torch.testing.assert_close(out, x.exp())


def test_device_argument_must_match():
    fd = _exp_fusion()
    with pytest.raises(FuseboxError, match=r"execute\(device='cuda:0'\): input 0 is on cpu"):
        fd.execute([torch.randn(2, 3)], device="cuda:0")


def test_bad_settings_name_the_setting():
    fd = _exp_fusion()
    with pytest.raises(FuseboxError, match="nonexistent"):
        fd.execute([torch.randn(2, 3)], settings={"schedulers": {"nonexistent": {"x": 1}}})
    with pytest.raises(FuseboxError, match="not a TOML value"):
        FusionDefinition(settings={"runtime": {"verify_passes": object()}})
    with pytest.raises(FuseboxError, match="config: expected a TOML file path or a dict"):
        FusionDefinition(config=3)
    with pytest.raises(FuseboxError, match="no-such-config.toml"):
        fd.execute([torch.randn(2, 3)], config="no-such-config.toml")
    with pytest.raises(FuseboxError, match="unknown"):
        fd.execute([torch.randn(2, 3)], dump="no_such_dump")
    x = torch.randn(2, 3)
    (out,) = fd.execute([x])
    torch.testing.assert_close(out, x.exp())


def test_add_output_of_a_non_input_alias():
    with pytest.raises(FuseboxError, match="alias_input T1 is not a fusion input"):
        with FusionDefinition() as fd:
            t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)
            t1 = fd.ops.exp(t0)
            fd.add_output(t1, alias_input=t1)


def test_contiguity_contract():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1, -1], contiguity=[True, True, True], dtype=DataType.Float)
        fd.add_output(fd.ops.neg(t0))
    # Size-1 dims may have any stride, as torch gives them.
    x = torch.randn(4, 1, 6).as_strided((4, 1, 6), (6, 123, 1))
    (out,) = fd.execute([x])
    assert torch.equal(out, -x)
    with pytest.raises(FuseboxError, match=r"input T0: dim 2 has stride 2, but the definition "
                                           r"declares it contiguous \(stride 1 expected"):
        fd.execute([torch.randn(4, 3, 12)[:, :, ::2]])
    with pytest.raises(FuseboxError, match=r"dim 0 has stride 36.*stride 18 expected"):
        fd.execute([torch.randn(8, 3, 6)[::2]])
    with FusionDefinition() as loose:
        t0 = loose.define_tensor(shape=[-1, -1], contiguity=[False, True], dtype=DataType.Float)
        loose.add_output(loose.ops.neg(t0))
    y = torch.randn(5, 8)[:, :4]
    (out,) = loose.execute([y])
    assert torch.equal(out, -y)


def test_index_out_of_range(device):
    """On the host backend the call itself fails; on the GPU execute does not
    wait for its kernel, so the error comes from fusebox.synchronize() (or the
    fusion's next call), as torch's asynchronous device asserts do."""
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t1 = fd.define_tensor(shape=[-1], dtype=DataType.Int)
        fd.add_output(fd.ops.index_select(t0, t1, dim=0))
    x = torch.randn(4, 8, device=device)
    good = torch.tensor([3, 0, 2], device=device)
    (out,) = fd.execute([x, good])
    torch.testing.assert_close(out, x[good])
    bad = torch.tensor([1, 7], device=device)
    message = r"index 7 .*out of range for dim 0 of T\d+\w*, of size 4"
    if device == "cpu":
        with pytest.raises(FuseboxError, match=message):
            fd.execute([x, bad])
    else:
        fd.execute([x, bad])  # returns: the kernel has not necessarily run
        with pytest.raises(FuseboxError, match="an earlier call of this fusion: .*" + message):
            fusebox.synchronize()
        fusebox.synchronize()  # raised once
    (out,) = fd.execute([x, good])
    fusebox.synchronize()
    torch.testing.assert_close(out, x[good])


def test_handles_outlive_their_definition_and_stay_in_it():
    def make():
        with FusionDefinition() as fd:
            t = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
            fd.add_output(fd.ops.exp(t))
        return t

    make()
    t = make()  # an equal fusion is cached already: this one's is not kept by the cache
    assert t.ndim == 2 and t.dtype() == DataType.Float
    with pytest.raises(FuseboxError, match=r"T0 belongs to another FusionDefinition"):
        with FusionDefinition() as other:
            u = other.define_tensor(shape=[-1, -1], dtype=DataType.Float)
            other.ops.add(u, t)
    with pytest.raises(ValueError):
        with FusionDefinition() as broken:
            kept = broken.define_tensor(shape=[-1], dtype=DataType.Half)
            raise ValueError("the user's own error")
    assert kept.ndim == 1 and kept.dtype() == DataType.Half
    with pytest.raises(FuseboxError, match="belongs to another FusionDefinition"):
        with FusionDefinition() as fresh:
            fresh.add_output(kept)


def test_negated_views_are_refused():
    fd = _exp_fusion()
    with pytest.raises(FuseboxError, match=r"input 0 \(T0\) is a lazily negated view; pass x.resolve_neg"):
        fd.execute([torch._neg_view(torch.randn(2, 3))])


def test_reshape_beyond_int64_elements():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        n = fd.define_vector(2)
        fd.add_output(fd.ops.reshape(t0, new_shape=n))
    with pytest.raises(FuseboxError, match=r"the number of elements overflows int64"):
        fd.execute([torch.randn(6, 10), 2**62, 4])


def test_bad_device_and_benchmark_arguments():
    fd = _exp_fusion()
    x = torch.randn(2, 3)
    with pytest.raises(FuseboxError, match=r"expected 'cpu', 'cuda' or 'cuda:N'"):
        fd.execute([x], device="cuda:x")
    with pytest.raises(FuseboxError, match=r"iterations must be an int from 1 to 1000000"):
        fd.benchmark([x], iterations=True)
    with pytest.raises(FuseboxError, match=r"iterations must be an int"):
        fd.benchmark([x], iterations=2**40)
    with pytest.raises(FuseboxError, match=r"contiguous"):
        fd.benchmark([torch.randn(6, 4).t()], iterations=1)
    assert fusebox.fusion_by_id(10**30) is None
