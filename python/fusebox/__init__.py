"""fusebox from Python: define a fusion as nvFuser's Python frontend does and
run it on torch tensors (docs/python.md).

    import torch
    from fusebox import FusionDefinition, DataType

    with FusionDefinition() as fd:
        t0 = fd.define_tensor(shape=[-1, -1], dtype=DataType.Float)
        fd.add_output(fd.ops.exp(t0))
    (out,) = fd.execute([torch.randn(4, 8)])

`nvfuser_direct` (and `nvfuser`) offer the same API under nvFuser's names."""

from . import _fusebox
from ._compare import CompareResult, VariantResult, compare
from ._datatype import DataType
from ._definition import FusionDefinition, Scalar, Tensor, Vector
from ._fusebox import FuseboxError

__all__ = [
    "CompareResult",
    "DataType",
    "FuseboxError",
    "FusionDefinition",
    "Scalar",
    "Tensor",
    "Vector",
    "VariantResult",
    "clear_fusion_cache",
    "compare",
    "cuda_available",
    "fusion_by_id",
    "num_fusions",
    "synchronize",
    "version",
]


def synchronize():
    """Waits for the GPU (torch's current device) and raises the first index
    error a kernel of an earlier call found (execute does not wait for its
    kernels; a later execute of the same fusion raises it too)."""
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.synchronize()
    except ImportError:
        pass
    _fusebox.check_deferred_index_errors()


def version():
    """fusebox's version ("0.1.0")."""
    return _fusebox.version()


def num_fusions():
    """Structurally distinct fusions in the process-wide cache."""
    return _fusebox.num_fusions()


def clear_fusion_cache():
    """Forgets every cached fusion (definitions already made keep theirs)."""
    _fusebox.clear_cache()


def fusion_by_id(fusion_id):
    """The cached fusion with this id (FusionDefinition.id()), or None."""
    if not isinstance(fusion_id, int) or isinstance(fusion_id, bool) or not 0 <= fusion_id < 2**63:
        return None
    return _fusebox.fusion_by_id(fusion_id)


def cuda_available():
    """(True, "") when a GPU is usable, else (False, why)."""
    return _fusebox.cuda_available()
