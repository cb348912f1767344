"""nvFuser's `nvfuser_direct` API, served by fusebox: code written for it
(and Lightning Thunder's nvFuser executor) imports this module unchanged.
What fusebox lacks refuses clearly when used (docs/python.md)."""

import enum

import fusebox as _fusebox_pkg
from fusebox import DataType, FuseboxError, FusionDefinition
from fusebox import _fusebox

# The nvFuser Python API level this module follows (Thunder checks it with
# LooseVersion), then fusebox's own version.
NVFUSER_API_VERSION = "0.2.34"
__version__ = f"{NVFUSER_API_VERSION}+fusebox.{_fusebox.version()}"


def version():
    return __version__


class ParallelType(enum.Enum):
    mesh_x = "mesh_x"
    grid_x = "grid_x"
    grid_y = "grid_y"
    grid_z = "grid_z"
    block_x = "block_x"
    block_y = "block_y"
    block_z = "block_z"
    mma = "mma"
    serial = "serial"
    tma = "tma"
    unroll = "unroll"
    unswitch = "unswitch"
    vectorize = "vectorize"
    stream = "stream"


class _Refused:
    """A name that imports but refuses when used."""

    def __init__(self, name, why):
        self._name = name
        self._why = why

    def __call__(self, *args, **kwargs):
        raise FuseboxError(f"{self._name}: {self._why}")

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Refused(f"{self._name}.{attr}", self._why)


_MULTI_DEVICE = "fusebox runs a fusion on one GPU; multi-device execution is not supported"


class _MultiDevice:
    DeviceMesh = _Refused("multidevice.DeviceMesh", _MULTI_DEVICE)
    Communicator = _Refused("multidevice.Communicator", _MULTI_DEVICE)

    def __getattr__(self, attr):
        return _Refused(f"multidevice.{attr}", _MULTI_DEVICE)


multidevice = _MultiDevice()
execute_with_dtensors = _Refused("execute_with_dtensors", _MULTI_DEVICE)


def compute_tensor_descriptor(sizes, strides):
    """(contiguity, stride_order) of a tensor with these sizes and strides, as
    define_tensor takes them: contiguity in allocation order, None for
    broadcast dims; stride_order ranks each dim (0 = innermost)."""
    return _fusebox.compute_tensor_descriptor(list(sizes), list(strides))


class LruFusionCache:
    """Thunder's decorator: fusebox's cache is process-wide already
    (structurally equal definitions share their fusion), so this only counts."""

    def __init__(self, max_fusions=16384):
        self.max_fusions = max_fusions

    def __call__(self, make_fd):
        import functools

        @functools.wraps(make_fd)
        def wrapper(*args, **kwargs):
            return make_fd(*args, **kwargs)

        wrapper.num_fusions = _fusebox_pkg.num_fusions
        wrapper.stats = lambda: {"num_fusions": _fusebox_pkg.num_fusions(),
                                 "max_fusions": self.max_fusions}
        return wrapper


__all__ = [
    "DataType",
    "FuseboxError",
    "FusionDefinition",
    "LruFusionCache",
    "ParallelType",
    "compute_tensor_descriptor",
    "execute_with_dtensors",
    "multidevice",
    "version",
]
