"""FusionDefinition and its handles (Tensor, Scalar, Vector).

Every define_*, add_output and fd.ops.<op> call goes to the extension's
definition builder, which binds its arguments with the same op table as the
script reader (docs/python-frontend.md): same argument names, same defaults,
same messages, located at the Python caller's file:line."""

import sys

from . import _fusebox, _torch
from ._datatype import DataType
from ._settings import Settings

# Ops nvFuser has that fusebox refuses by name (rather than "unknown op").
_REFUSED_OPS = {
    "grouped_mm": "grouped matmuls are not supported",
    "sdpfa_fwd": "scaled dot-product attention is not supported",
    "sdpfa_bwd": "scaled dot-product attention is not supported",
}


def _caller(depth):
    """(file, line) of the user's code `depth` frames above the caller."""
    frame = sys._getframe(depth + 1)
    return frame.f_code.co_filename, frame.f_lineno


def _wrap(value, fd):
    if isinstance(value, tuple):
        return tuple(_wrap(v, fd) for v in value)
    if isinstance(value, list):
        return [_wrap(v, fd) for v in value]
    if isinstance(value, _fusebox._Value):
        kind = value.kind
        if kind == "tensor":
            return Tensor(value, fd)
        if kind == "scalar":
            return Scalar(value, fd)
        if kind == "vector":
            return Vector(value, fd)
    return value


class _Handle:
    __slots__ = ("_value", "_fd")

    def __init__(self, value, fd):
        self._value = value
        self._fd = fd

    def __repr__(self):
        return self._value.name

    __str__ = __repr__

    def _method(self, name, args, kwargs):
        file, line = _caller(2)
        builder = self._fd._require_builder(f"{self._value.name}.{name}")
        return _wrap(builder.value_method(self._value, name, args, kwargs, file, line), self._fd)

    def dtype(self):
        return DataType[self._value.dtype]

    def is_fusion_input(self):
        return self._value.is_fusion_input


class Tensor(_Handle):
    """A tensor of the definition (nvFuser's TensorView handle)."""

    __slots__ = ()

    def size(self, *args, **kwargs):
        return self._method("size", args, kwargs)

    def shape(self, *args, **kwargs):
        return self._method("shape", args, kwargs)

    @property
    def ndim(self):
        return self._value.ndim

    def __add__(self, other):
        raise TypeError(f"{self} + ...: definitions compute with fd.ops.add(...), not Python operators")

    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __add__


class Scalar(_Handle):
    """A scalar of the definition (a constant or a symbolic input)."""

    __slots__ = ()

    def is_symbolic(self):
        return self._value.is_fusion_input


class Vector(_Handle):
    """A list of int scalars (a shape), from define_vector([...]) or T.shape()."""

    __slots__ = ()

    def __len__(self):
        return len(self._value.vector_items())

    def __getitem__(self, index):
        return _wrap(self._value.vector_items()[index], self._fd)

    def __repr__(self):
        return "[" + ", ".join(repr(s) for s in self) + "]"

    __str__ = __repr__


class _Ops:
    """fd.ops: every op of docs/python-frontend.md, bound by name."""

    _names = frozenset(_fusebox.op_names())

    def __init__(self, fd):
        self._fd = fd

    def __getattr__(self, name):
        if name in _REFUSED_OPS:
            def refused(*args, **kwargs):
                file, line = _caller(1)
                raise _fusebox.FuseboxError(f"{file}:{line}: fd.ops.{name}: {_REFUSED_OPS[name]} by fusebox")
            return refused
        if name not in self._names:
            raise AttributeError(f"fd.ops has no op '{name}' (see dir(fd.ops))")
        fd = self._fd

        def op(*args, **kwargs):
            file, line = _caller(1)
            builder = fd._require_builder(f"fd.ops.{name}")
            return _wrap(builder.op(name, args, kwargs, file, line), fd)

        op.__name__ = name
        return op

    def __dir__(self):
        return sorted(self._names)


class FusionDefinition:
    """A fusion, defined inside `with FusionDefinition() as fd:` and run with
    fd.execute(inputs) on torch tensors (CPU tensors on the host backend,
    CUDA tensors on the GPU).

    fusebox's own keywords choose how it runs: `config` (a TOML file or a
    dict of settings over the default config), `settings` (a dict or a list
    of "KEY=VALUE", as `fusebox run --set`), `disable_passes`,
    `disable_schedulers` and `dump` (names of [dump] options). execute()
    takes the same keywords for one call."""

    def __init__(self, *, config=None, settings=None, disable_passes=None,
                 disable_schedulers=None, dump=None):
        self._builder = None
        self._fusion = None
        self._settings = Settings(config, settings, disable_passes, disable_schedulers, dump)
        self._native_settings = None
        self._aliased = None  # positions of the inputs written in place
        self._selected_device = None
        self.ops = _Ops(self)

    # ---- defining ---------------------------------------------------------

    def __enter__(self):
        if self._fusion is not None:
            raise _fusebox.FuseboxError("this FusionDefinition is already defined; make a new one")
        self._builder = _fusebox._Builder()
        return self

    def __exit__(self, exc_type, exc, tb):
        builder, self._builder = self._builder, None
        if exc_type is None and builder is not None:
            self._fusion = builder.finish()
        return False

    def _require_builder(self, what):
        if self._builder is None:
            where = "after its `with` block" if self._fusion is not None else "outside a `with FusionDefinition() as fd:` block"
            raise _fusebox.FuseboxError(f"{what} called {where}")
        return self._builder

    def _call(self, name, args, kwargs):
        file, line = _caller(2)
        return _wrap(self._require_builder(f"fd.{name}").method(name, args, kwargs, file, line), self)

    def define_tensor(self, *args, **kwargs):
        return self._call("define_tensor", args, kwargs)

    def define_scalar(self, *args, **kwargs):
        return self._call("define_scalar", args, kwargs)

    define_constant = define_scalar

    def define_vector(self, *args, **kwargs):
        """define_vector(n): n symbolic int scalars (inputs), as nvfuser_direct;
        define_vector([...]): a shape of ints and scalars, as nvFuser's scripts."""
        if len(args) == 1 and not kwargs and isinstance(args[0], int) and not isinstance(args[0], bool):
            if args[0] < 0:
                raise _fusebox.FuseboxError(f"fd.define_vector: size must be >= 0, got {args[0]}")
            return [self._call("define_scalar", (None, DataType.Int), {}) for _ in range(args[0])]
        return self._call("define_vector", args, kwargs)

    def from_pytorch(self, tensor, static_sizes=False):
        """A tensor input shaped like `tensor` (its sizes, strides and dtype);
        a number makes a scalar input of its type, as the script reader does."""
        torch = _torch._torch()
        if isinstance(tensor, (bool, int, float)):
            dtype = {bool: DataType.Bool, int: DataType.Int, float: DataType.Double}[type(tensor)]
            return self._call("define_scalar", (None, dtype), {})
        if not isinstance(tensor, torch.Tensor):
            raise _fusebox.FuseboxError(
                f"fd.from_pytorch takes a torch tensor, got a Python {type(tensor).__qualname__}")
        dtype = _torch.nvfuser_dtype(tensor.dtype)
        return self._call("define_tensor", (),
                          {"sizes": list(tensor.shape), "strides": list(tensor.stride()),
                           "dtype": dtype, "static_sizes": static_sizes})

    def add_output(self, *args, **kwargs):
        self._call("add_output", args, kwargs)

    # ---- running ----------------------------------------------------------

    def _require_fusion(self, what):
        if self._fusion is None:
            raise _fusebox.FuseboxError(
                f"fd.{what}: the definition is not finished (define it inside "
                "`with FusionDefinition() as fd:` first)")
        return self._fusion

    def _prepare(self, what, inputs, device, call_settings, enable=(), disable=()):
        fusion = self._require_fusion(what)
        described, cuda_index = _torch.describe_inputs(inputs, fusion)
        want_cuda = False
        if device is not None:
            kind, index = _parse_device(device)
            _check_device(device, kind, index, described)
            if kind == "cuda":
                # On the GPU even without tensor inputs (outputs made there).
                want_cuda = True
                cuda_index = index
        # (No generator here: this runs on every call.)
        config, settings, passes, schedulers, dump = call_settings
        if (enable or disable or config is not None or settings is not None or passes is not None
                or schedulers is not None or dump is not None):
            run = self._settings.over(Settings(*call_settings))
            run = run.with_nvfuser_options(enable, disable).native()
        else:
            # The common call: the definition's own settings, made once.
            if self._native_settings is None:
                self._native_settings = self._settings.with_nvfuser_options((), ()).native()
            run = self._native_settings
        # On CUDA tensors fusebox's kernels go on torch's current stream,
        # queued after the work that makes the inputs; the call returns
        # without waiting.
        stream = 0 if cuda_index is None else _torch.current_stream(cuda_index)
        return fusion, described, run, stream, want_cuda

    def execute(self, inputs, *, device=None, save_repro_inputs=False, _enable_options=(),
                _disable_options=(), config=None, settings=None, disable_passes=None,
                disable_schedulers=None, dump=None):
        """Runs the fusion on `inputs` (torch tensors and numbers, one per
        fusion input) and returns its outputs as torch tensors (outputs
        written into an input with add_output(alias_input=) are not returned,
        as in nvFuser). On CUDA tensors it queues the kernels on torch's
        current stream and returns without waiting for them."""
        fusion, described, run, stream, want_cuda = self._prepare(
            "execute", inputs, device,
            (config, settings, disable_passes, disable_schedulers, dump),
            _enable_options, _disable_options)
        items, dump_text, diagnostics = fusion.execute(described, run, stream, want_cuda)
        _torch.write_streams(dump_text, diagnostics)
        if self._aliased is None:
            self._aliased = _fusebox.aliased_inputs(fusion)
        for k in self._aliased:
            # Written in place: torch's autograd must see the tensor changed,
            # as after its own in-place ops.
            _torch.bump_version(inputs[k])
        if save_repro_inputs:
            self._repro_inputs = list(inputs)
        return _torch.make_outputs(items, inputs)

    def benchmark(self, inputs, *, iterations=20, flush_l2=True, config=None, settings=None,
                  disable_passes=None, disable_schedulers=None, dump=None):
        """Runs the fusion once, then times each generated kernel over
        `iterations` launches (median; CUDA events on the GPU, the L2
        flushed before each launch unless flush_l2=False; wall time on the
        host), as `fusebox run --bench`. Returns one dict per kernel: group,
        kernel, median_ms, bytes_moved, gb_per_s."""
        if (not isinstance(iterations, int) or isinstance(iterations, bool) or iterations < 1
                or iterations > 1_000_000):
            raise _fusebox.FuseboxError(
                f"benchmark: iterations must be an int from 1 to 1000000, got {iterations!r}")
        fusion, described, run, stream, want_cuda = self._prepare(
            "benchmark", inputs, None,
            (config, settings, disable_passes, disable_schedulers, dump))
        kernels, dump_text, diagnostics = fusion.benchmark(described, run, stream, want_cuda,
                                                           iterations, bool(flush_l2))
        _torch.write_streams(dump_text, diagnostics)
        return kernels

    # ---- looking at it ----------------------------------------------------

    def __repr__(self):
        if self._fusion is not None:
            return self._fusion.python()
        if self._builder is not None:
            return self._builder.python()
        return "<FusionDefinition: not defined yet>"

    __str__ = __repr__

    def id(self):
        """The fusion's id in the process-wide cache (equal definitions share it)."""
        return self._require_fusion("id").id

    def fusion_ir(self):
        """The fusion as defined, in nvFuser's IR notation."""
        return self._require_fusion("fusion_ir").fusion_ir()

    def last_scheduled_fusion_ir(self):
        """The fusion after passes, as the last call ran it."""
        return self._require_fusion("last_scheduled_fusion_ir").last_fusion_ir()

    def last_segmentation(self):
        """The segmented fusion of the last call (groups, schedulers, edges)."""
        return self._require_fusion("last_segmentation").last_segmentation()

    def last_cuda_code(self, intrinsic_code=False, **kwargs):
        """The source of the kernels the last call ran, one after another."""
        kernels = self._require_fusion("last_cuda_code").last_kernels()
        return "\n".join(source for _, source in kernels)

    def last_kernels(self):
        """[(kernel name, source)] of the last call, in run order."""
        return self._require_fusion("last_kernels").last_kernels()

    def last_run(self):
        """The last call: cache hit, signature, backend, and per segment its
        scheduler, kernel and milliseconds."""
        return self._require_fusion("last_run").last_run()

    def last_kernel_times(self):
        """[(kernel name, milliseconds)] of the last call's generated kernels."""
        return [(s["kernel"], s["milliseconds"]) for s in self.last_run()["segments"] if s["kernel"]]

    def schedulers(self):
        """The scheduler of each segment of the last call, in run order."""
        return [s["scheduler"] for s in self.last_run()["segments"]]

    def repro_script_for(self, inputs=None):
        return repr(self)


def _parse_device(device):
    """("cuda", 0) from 0, "cuda", "cuda:0" or torch.device("cuda:0"); ("cpu", 0) from "cpu"."""
    if isinstance(device, bool) or not isinstance(device, (int, str)) and not hasattr(device, "type"):
        raise _fusebox.FuseboxError(
            f"execute(device={device!r}): expected an int, a string such as 'cuda:0' or a "
            "torch.device")
    if isinstance(device, int):
        return "cuda", device
    if not isinstance(device, str):
        return device.type, device.index or 0
    kind, _, index = device.partition(":")
    if kind not in ("cpu", "cuda") or (index and not index.isdigit()):
        raise _fusebox.FuseboxError(
            f"execute(device={device!r}): expected 'cpu', 'cuda' or 'cuda:N'")
    return kind, int(index) if index else 0


def _check_device(device, kind, index, described):
    """execute(device=...): every tensor input of rank > 0 must be there."""
    wanted = f"cuda:{index}" if kind == "cuda" else kind
    for i, d in enumerate(described):
        if not isinstance(d, tuple) or not d[2]:
            continue
        place = f"cuda:{d[6]}" if d[5] == "cuda" else d[5]
        if place != wanted:
            raise _fusebox.FuseboxError(
                f"execute(device={device!r}): input {i} is on {place}, expected {wanted}")
