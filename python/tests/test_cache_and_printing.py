"""The process-wide fusion cache and the definition printed back."""

import torch

import fusebox
from fusebox import DataType, FusionDefinition


def _define(scale):
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        fd.add_output(fd.ops.mul(t0, scale))
    return fd


def test_equal_definitions_share_one_fusion():
    a = _define(2.0)
    before = fusebox.num_fusions()
    b = _define(2.0)
    assert fusebox.num_fusions() == before
    assert a.id() == b.id()
    c = _define(3.0)  # another constant: another fusion
    assert fusebox.num_fusions() == before + 1
    assert c.id() != a.id()


def test_second_definition_reuses_the_compiled_plan():
    x = torch.randn(4, 8)
    a = _define(5.0)
    a.execute([x])
    b = _define(5.0)
    (out,) = b.execute([x])
    assert b.last_run()["cache_hit"]  # same fusion, same signature: plans only
    torch.testing.assert_close(out, x * 5.0)


def test_repr_is_a_definition_that_runs():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.BFloat16)
        t1 = fd.define_tensor(shape=[-1], dtype=DataType.BFloat16)
        t2 = fd.ops.broadcast_in_dim(t1, shape=t0.shape(), broadcast_dims=[1])
        t3 = fd.ops.cast(fd.ops.add(fd.ops.cast(t0, DataType.Float), fd.ops.cast(t2, DataType.Float)),
                         DataType.BFloat16)
        s, m = fd.ops.var_mean(t3, dims=[0], correction=0)
        fd.add_output(t3)
        fd.add_output(m)
    text = repr(fd)
    assert text == str(fd)
    assert "fd.ops.var_mean" in text and "def nvfuser_fusion_id0" in text
    scope = {}
    exec(compile(text, "<repr>", "exec"), scope)
    with FusionDefinition() as again:
        scope["nvfuser_fusion_id0"](again)
    assert again.id() == fd.id()
    assert again.fusion_ir() == fd.fusion_ir()


def test_introspection_after_a_call():
    x = torch.randn(16, 64)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t1 = fd.ops.exp(t0)
        fd.add_output(fd.ops.sum(t1, dims=[1]))
        fd.add_output(t1)
    fd.execute([x])
    run = fd.last_run()
    assert run["backend"] == "host" and not run["cache_hit"]
    assert fd.schedulers() == ["reduction"]
    code = fd.last_cuda_code()
    assert "__global__" in code
    assert [name for name, _ in fd.last_kernels()] == [k for k, _ in fd.last_kernel_times()]
    assert "T" in fd.last_scheduled_fusion_ir()
    assert "group 0" in fd.last_segmentation()
    fd.execute([x])
    assert fd.last_run()["cache_hit"]


def test_dump_option_prints_to_stdout(capsys):
    x = torch.randn(4, 8)
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        fd.add_output(fd.ops.abs(t0))
    fd.execute([x], _enable_options=["segmented_fusion"])
    assert "group 0" in capsys.readouterr().out


def test_schedulers_disabled_per_call_per_definition_and_by_config_dict():
    x = torch.randn(4, 8)

    def define(**kwargs):
        with FusionDefinition(**kwargs) as fd:
            t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
            fd.add_output(fd.ops.abs(t0))
        return fd

    fd = define()
    fd.execute([x])
    assert fd.schedulers() == ["pointwise"]
    (out,) = fd.execute([x], disable_schedulers="pointwise")
    assert fd.schedulers() != ["pointwise"] and torch.equal(out, x.abs())
    fd.execute([x])  # the definition's own settings again
    assert fd.schedulers() == ["pointwise"]
    for other in (define(disable_schedulers=["pointwise"]),
                  define(config={"schedulers": {"disabled": ["pointwise"]}}),
                  define(settings=['schedulers.disabled=["pointwise"]'])):
        (out,) = other.execute([x])
        assert other.schedulers() != ["pointwise"] and torch.equal(out, x.abs())
