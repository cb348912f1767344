"""fusebox.compare: `fusebox compare`'s A/B verdict from Python, on the
caller's tensors."""

import pytest
import torch

import fusebox
from fusebox import DataType, FuseboxError, FusionDefinition, _torch

# Short runs: the tests check the plumbing and one clear-cut verdict, not speed.
FAST = dict(repetitions=6, warmup=1, min_sample_ms=0.2)


def _gelu_fusion():
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t1 = fd.ops.mul(t0, fd.ops.sigmoid(fd.ops.mul(t0, 1.702)))
        fd.add_output(fd.ops.add(t1, 1.0))
    return fd


def test_same_settings_twice(device):
    fd = _gelu_fusion()
    x = torch.randn(64, 96, device=device)
    r = fusebox.compare(fd, [x], None, {}, **FAST)
    assert r.verdict in ("faster", "slower", "no difference")
    assert r.interval[0] <= r.ratio <= r.interval[1] and 0 <= r.p_value <= 1
    assert len(r.a.times_ms) == len(r.b.times_ms) == 6 and min(r.a.times_ms) > 0
    assert r.same_decision and r.a.segments and r.a.segments[0]["scheduler"] == "pointwise"
    assert r.checked and r.outputs_ok
    assert r.backend == ("cuda" if device == "cuda" else "host")
    text = str(r)
    assert "vs A [95% CI]" in text and "(same as A)" in text
    assert "every variant validates against the evaluator" in text


def test_the_evaluator_is_slower_than_a_kernel():
    # B runs the segment on the reference evaluator (the pointwise scheduler
    # disabled), element by element: many times slower, a clear verdict.
    fd = _gelu_fusion()
    x = torch.randn(256, 512)
    r = fusebox.compare(fd, [x], a=None, b="--disable-scheduler pointwise", **FAST)
    assert [s["scheduler"] for s in r.b.segments] == ["expr_eval"]
    assert not r.same_decision
    assert r.verdict == "slower" and r.ratio > 1.5 and r.interval[0] > 1
    assert r.p_value < 0.05 and r.outputs_ok


def test_variants_as_dicts_and_flags_reach_the_runtime():
    fd = _gelu_fusion()
    x = torch.randn(32, 32)
    r = fusebox.compare(fd, [x], a={"disable_schedulers": ["pointwise"]},
                        b="--set schedulers.pointwise.unroll=2", check=False, **FAST)
    assert r.a.segments[0]["scheduler"] == "expr_eval"
    assert r.b.segments[0]["scheduler"] == "pointwise"
    assert not r.checked and r.outputs_ok is None


def test_compare_leaves_inputs_written_in_place_alone(device):
    p = torch.randn(16, 8, device=device)
    g = torch.randn(16, 8, device=device)
    before = p.clone()
    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        t1 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        fd.add_output(fd.ops.sub(t0, fd.ops.mul(t1, 0.5)), alias_input=t0)
        fd.add_output(fd.ops.sum(t1, dims=[1]))
    r = fusebox.compare(fd, [p, g], **FAST)
    assert r.outputs_ok, str(r)
    assert torch.equal(p, before)


def test_check_outputs_finds_a_wrong_output():
    fd = _gelu_fusion()
    x = torch.randn(8, 8)
    (out,) = fd.execute([x])
    fusion = fd._require_fusion("test")
    describe = lambda values: _torch.describe_inputs(values, fusion)[0]
    assert list(fusion.check_outputs(describe([x]), describe([x]), describe([out]))) == []
    wrong = out.clone()
    wrong[3, 5] += 0.01
    problems = list(fusion.check_outputs(describe([x]), describe([x]), describe([wrong])))
    assert len(problems) == 1 and problems[0].startswith("output 0 ")
    assert "1 mismatched, first at element [3, 5]" in problems[0]


@pytest.mark.parametrize("kwargs,message", [
    (dict(b={"disable_pass": ["x"]}), r"compare: b: unknown key 'disable_pass'"),
    (dict(b="--frobnicate"), r"unknown flag '--frobnicate'"),
    (dict(a="--no-passes"), r"unknown flag '--no-passes' \(from Python, name the passes"),
    (dict(b="--disable-pass"), r"--disable-pass needs a value"),
    (dict(b="--set="), r"--set needs a value, got an empty one"),
    (dict(b="--disable-scheduler ''"), r"--disable-scheduler needs a value, got an empty one"),
    (dict(b="'unterminated"), r"compare: b ''unterminated': No closing quotation"),
    (dict(check="no"), r"check must be True or False, got 'no'"),
    (dict(b=3), r"compare: b: expected None, a dict"),
    (dict(repetitions=1), r"repetitions must be an int from 2 to 100000, got 1"),
    (dict(alpha=1.0), r"alpha must be a number in \(0.0, 1.0\)"),
    (dict(min_sample_ms=-1), r"min_sample_ms must be a number"),
])
def test_bad_arguments(kwargs, message):
    fd = _gelu_fusion()
    with pytest.raises(FuseboxError, match=message):
        fusebox.compare(fd, [torch.randn(4, 4)], **kwargs)


def test_what_is_compared_must_be_a_finished_definition():
    with pytest.raises(FuseboxError, match=r"fd must be a FusionDefinition, got a Python NoneType"):
        fusebox.compare(None, [torch.randn(2)])
    with pytest.raises(FuseboxError, match=r"fusebox.compare: the definition is not finished"):
        fusebox.compare(FusionDefinition(), [torch.randn(2)])


def test_integer_scalar_outputs_are_compared_as_integers():
    # 2**60 + 1 has no double: read through a double it would differ by 2.
    with FusionDefinition() as fd:
        s0 = fd.define_scalar(DataType.Int)
        t0 = fd.define_tensor(shape=[-1], dtype=DataType.Float)
        fd.add_output(fd.ops.add(s0, 1))
        fd.add_output(fd.ops.mul(t0, 2.0))
    r = fusebox.compare(fd, [2**60 + 1, torch.randn(3)], **FAST)
    assert r.outputs_ok, str(r)


def test_an_unknown_scheduler_is_an_error_and_the_cache_stays_usable():
    fd = _gelu_fusion()
    x = torch.randn(4, 4)
    with pytest.raises(FuseboxError, match="frobnicate"):
        fusebox.compare(fd, [x], b={"disable_schedulers": ["frobnicate"]}, **FAST)
    (out,) = fd.execute([x])
    assert out.shape == (4, 4)
