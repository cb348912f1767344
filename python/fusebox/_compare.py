"""fusebox.compare: `fusebox compare`'s A/B measurement from Python. One
fusion runs on the caller's inputs under two variants (configs, settings,
disabled passes or schedulers), interleaved A B, B A, ..., and the verdict
says whether B is faster or slower than A: the Mann-Whitney U test, the ratio
of typical times with its 95% interval, as the CLI computes them (the same
C++ statistics)."""

import os
import shlex
import time

from . import _fusebox, _torch

_VARIANT_KEYS = ("config", "settings", "disable_passes", "disable_schedulers")
_FLAGS = "--config FILE, --set KEY=VALUE, --disable-pass NAME, --disable-scheduler NAME"


def _flags_to_keywords(text, what):
    """`fusebox compare --variant`'s FLAGS as execute()'s keywords."""
    keywords = {"settings": [], "disable_passes": [], "disable_schedulers": []}
    try:
        tokens = shlex.split(text)
    except ValueError as e:
        raise _fusebox.FuseboxError(f"{what} '{text}': {e} (a variant's flags are {_FLAGS})")
    i = 0
    while i < len(tokens):
        token = tokens[i]
        flag, eq, value = token.partition("=") if token.startswith("--") else (token, "", "")
        if flag not in ("--config", "--set", "--disable-pass", "--disable-scheduler"):
            hint = (" (from Python, name the passes to disable instead)"
                    if flag == "--no-passes" else "")
            raise _fusebox.FuseboxError(
                f"{what} '{text}': unknown flag '{token}'{hint}; a variant's flags are {_FLAGS}")
        if not eq:
            i += 1
            if i == len(tokens):
                raise _fusebox.FuseboxError(f"{what} '{text}': {flag} needs a value")
            value = tokens[i]
        if not value:
            raise _fusebox.FuseboxError(f"{what} '{text}': {flag} needs a value, got an empty one")
        if flag == "--config":
            keywords["config"] = os.path.expanduser(value)
        elif flag == "--set":
            keywords["settings"].append(value)
        elif flag == "--disable-pass":
            keywords["disable_passes"].append(value)
        else:
            keywords["disable_schedulers"].append(value)
        i += 1
    return keywords


def _variant(spec, what):
    """(execute keywords, text for the table) of a variant: None (the
    definition's own settings), a dict of execute()'s keywords, or a string
    of `fusebox compare --variant` flags."""
    if spec is None:
        return {}, "(the definition's settings)"
    if isinstance(spec, str):
        return _flags_to_keywords(spec, what), spec or "(the definition's settings)"
    if isinstance(spec, dict):
        for key in spec:
            if key not in _VARIANT_KEYS:
                raise _fusebox.FuseboxError(
                    f"{what}: unknown key {key!r}; a variant is a dict of "
                    f"{', '.join(_VARIANT_KEYS)}, or a string of {_FLAGS}")
        return dict(spec), repr(spec)
    raise _fusebox.FuseboxError(
        f"{what}: expected None, a dict of {', '.join(_VARIANT_KEYS)} or a string of flags, "
        f"got a Python {type(spec).__qualname__}")


def _int_in(value, low, high, what):
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _fusebox.FuseboxError(f"compare: {what} must be an int from {low} to {high}, got {value!r}")
    return value


def _number_in(value, low, high, what, open_low=False, open_high=False):
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    ok = ok and (value > low if open_low else value >= low) and (value < high if open_high else value <= high)
    if not ok:
        raise _fusebox.FuseboxError(
            f"compare: {what} must be a number in {'(' if open_low else '['}{low}, {high}"
            f"{')' if open_high else ']'}, got {value!r}")
    return float(value)


def _copies(inputs):
    torch = _torch._torch()
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def _on_host(values):
    torch = _torch._torch()
    return [x.detach().cpu().clone() if isinstance(x, torch.Tensor) else x for x in values]


class VariantResult:
    """One variant's samples (ms per call), their summary, its segments as
    its runtime scheduled them, and its output problems (empty: validated)."""

    def __init__(self, name, flags, times_ms, summary, segments, output_problems):
        self.name = name
        self.flags = flags
        self.times_ms = times_ms
        self.median_ms = summary["median_ms"]
        self.min_ms = summary["min_ms"]
        self.iqr_ms = summary["iqr_ms"]
        self.segments = segments
        self.output_problems = output_problems

    def describe_segments(self):
        return ", ".join(f"{s['scheduler']}#{s['params_hash'][-8:]}" for s in self.segments)


class CompareResult:
    """B against A: `verdict` ("faster", "slower", "no difference"), `ratio`
    of B's typical time to A's with its 95% `interval`, the U test's
    `p_value`, and each variant's figures (`a`, `b`). str() prints the table
    `fusebox compare` prints."""

    def __init__(self, a, b, stats, runs_per_sample, backend, alpha, min_effect, checked):
        self.a = a
        self.b = b
        self.verdict = stats["verdict"]
        self.ratio = stats["ratio"]
        self.interval = tuple(stats["interval"])
        self.p_value = stats["p_value"]
        self.alpha = alpha
        self.min_effect = min_effect
        self.runs_per_sample = runs_per_sample
        self.backend = backend
        self.same_decision = a.segments == b.segments
        self.checked = checked
        # None when nothing was checked (check=False).
        self.outputs_ok = (not a.output_problems and not b.output_problems) if checked else None

    def __str__(self):
        lines = [f"compare: A {self.a.flags} (baseline), B {self.b.flags}; {self.backend}, "
                 f"{len(self.a.times_ms)} repetitions of {self.runs_per_sample} run"
                 f"{'' if self.runs_per_sample == 1 else 's'}, alpha {self.alpha}, "
                 f"min effect {100 * self.min_effect:g}%"]
        head = (f"  {'variant':<10} {'median ms':>10} {'min ms':>10} {'IQR ms':>10}  "
                f"{'vs A [95% CI]':<25} {'p':>9}  {'verdict':<14} segments")
        lines.append(head)
        for v, ratio, p, verdict in (
                (self.a, "(baseline)", "", ""),
                (self.b, f"{self.ratio:.3f} [{self.interval[0]:.3f}, {self.interval[1]:.3f}]",
                 f"{self.p_value:.2g}", self.verdict)):
            segments = v.describe_segments()
            if v is self.b and self.same_decision:
                segments += " (same as A)"
            lines.append(f"  {v.name:<10} {v.median_ms:>10.4f} {v.min_ms:>10.4f} {v.iqr_ms:>10.4f}  "
                         f"{ratio:<25} {p:>9}  {verdict:<14} {segments}")
        for v in (self.a, self.b):
            for problem in v.output_problems:
                lines.append(f"  outputs: {v.name} {problem}: FAIL")
        if self.checked and self.outputs_ok:
            lines.append("  outputs: every variant validates against the evaluator")
        return "\n".join(lines)

    __repr__ = __str__


class _Runner:
    def __init__(self, fd, inputs, keywords):
        self.fd = fd
        self.keywords = keywords
        aliased = _fusebox.aliased_inputs(fd._require_fusion("compare"))
        # Outputs written into inputs write this variant's own copies.
        self.inputs = _copies(inputs) if aliased else list(inputs)
        self.fusion, self.described, self.run, self.stream, self.want_cuda = fd._prepare(
            "compare", self.inputs, None,
            tuple(keywords.get(k) for k in _VARIANT_KEYS) + (None,))
        self.cuda = self.want_cuda or any(
            isinstance(d, tuple) and d[5] == "cuda" for d in self.described)

    def first_run(self, inputs, check):
        """Compiles, checks the outputs, and records the segments."""
        problems = []
        if check:
            before = _on_host(inputs)
            trial = _copies(inputs)
            outputs = self.fd.execute(trial, **self.keywords)
            self.synchronize()
            # The host copies stay referenced here while the extension reads them.
            after, returned = _on_host(trial), _on_host(outputs)
            described = lambda values: _torch.describe_inputs(values, self.fusion)[0]
            problems = list(self.fusion.check_outputs(
                described(before), described(after), described(returned)))
        else:
            self.fd.execute(self.inputs, **self.keywords)
        run = self.fusion.last_run()
        segments = [{"group": s["group"], "scheduler": s["scheduler"],
                     "params_hash": s["params_hash"], "kernel": s["kernel"]}
                    for s in run["segments"]]
        return segments, problems, run["backend"]

    def synchronize(self):
        if self.cuda:
            _torch._torch().cuda.synchronize()
        _fusebox.check_deferred_index_errors()

    def time(self, runs):
        """Milliseconds per call over `runs` back-to-back calls."""
        execute = self.fusion.execute
        described, run, stream, want_cuda = self.described, self.run, self.stream, self.want_cuda
        self.synchronize()
        start = time.perf_counter()
        for _ in range(runs):
            execute(described, run, stream, want_cuda)
        self.synchronize()
        return (time.perf_counter() - start) * 1000.0 / runs


def compare(fd, inputs, a=None, b=None, *, repetitions=20, warmup=3, min_sample_ms=2.0,
            alpha=0.05, min_effect=0.01, check=True):
    """Runs `fd` on `inputs` under variants `a` (the baseline) and `b`, as
    `fusebox compare` does, and returns a CompareResult: B's verdict against
    A, the ratio of typical times, its 95% interval and the p-value.

    A variant is None (the definition's own settings), a dict of execute()'s
    keywords (config, settings, disable_passes, disable_schedulers), or a
    string of `fusebox compare --variant` flags ("--disable-pass
    remove_bcast_squeeze --set schedulers.pointwise.unroll=2"). Each sample
    times back-to-back calls for at least `min_sample_ms` (one run count for
    both variants), after `warmup` untimed calls; the variants alternate
    A B, B A, ... With `check`, each variant's first outputs are checked
    against the reference evaluator (on host copies) first."""
    from ._definition import FusionDefinition

    if not isinstance(fd, FusionDefinition):
        raise _fusebox.FuseboxError(
            f"fusebox.compare: fd must be a FusionDefinition, got a Python {type(fd).__qualname__}")
    if fd._fusion is None:
        raise _fusebox.FuseboxError(
            "fusebox.compare: the definition is not finished (define it inside "
            "`with FusionDefinition() as fd:` first)")
    if not isinstance(check, bool):
        raise _fusebox.FuseboxError(f"compare: check must be True or False, got {check!r}")
    repetitions = _int_in(repetitions, 2, 100000, "repetitions")
    warmup = _int_in(warmup, 0, 100000, "warmup")
    min_sample_ms = _number_in(min_sample_ms, 0.0, 60000.0, "min_sample_ms")
    alpha = _number_in(alpha, 0.0, 1.0, "alpha", open_low=True, open_high=True)
    min_effect = _number_in(min_effect, 0.0, 1.0, "min_effect", open_high=True)
    variants = [_variant(a, "compare: a"), _variant(b, "compare: b")]
    if not isinstance(inputs, (list, tuple)):
        raise _fusebox.FuseboxError(
            f"compare takes a list of inputs, got a Python {type(inputs).__qualname__}")
    inputs = list(inputs)

    runners, firsts = [], []
    for keywords, _ in variants:
        runner = _Runner(fd, inputs, keywords)
        firsts.append(runner.first_run(inputs, check))
        runners.append(runner)
    for _ in range(warmup):
        for r in runners:
            r.time(1)
    fastest = min(r.time(3) for r in runners)
    runs = int(min(max(-(-min_sample_ms // max(fastest, 1e-6)), 1), 1e6))
    times = [[], []]
    for rep in range(repetitions):
        order = (0, 1) if rep % 2 == 0 else (1, 0)
        for i in order:
            times[i].append(runners[i].time(runs))
    results = []
    for i, (name, (_, flags)) in enumerate(zip("AB", variants)):
        segments, problems, _ = firsts[i]
        results.append(VariantResult(name, flags, times[i], _fusebox.summarize(times[i]),
                                     segments, problems))
    stats = _fusebox.compare_samples(times[1], times[0], alpha, min_effect)
    return CompareResult(results[0], results[1], stats, runs, firsts[0][2], alpha, min_effect,
                         check)
