"""torch tensors to the extension's input descriptors and its outputs back to
torch tensors. torch is imported when a fusion first runs, never linked:
one build serves every torch version."""

import numbers
import sys

from . import _fusebox


_torch_module = None
_dtype_names = {}


def _torch():
    global _torch_module
    if _torch_module is None:
        import torch

        _torch_module = torch
        for name in ("bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"):
            _dtype_names[getattr(torch, name)] = name
    return _torch_module


def _label(index, fusion):
    names = fusion.input_names()
    return f"input {index} ({names[index]})" if index < len(names) else f"input {index}"


def describe_inputs(inputs, fusion):
    """The extension's descriptors of `inputs`, and the CUDA device index of
    the first CUDA tensor (None when there is none). A tensor is handed over
    by its data pointer, sizes, strides, dtype and device (a bool tensor like
    any other: the extension never asks torch for a DLPack capsule of an
    input)."""
    torch = _torch()
    if not isinstance(inputs, (list, tuple)):
        raise _fusebox.FuseboxError(
            f"execute takes a list of inputs, got a Python {type(inputs).__qualname__}"
        )
    described = []
    cuda_index = None
    tensor = torch.Tensor
    for i, value in enumerate(inputs):
        if isinstance(value, tensor):
            if value.is_neg():
                # torch keeps the negation as a flag beside the memory. (A
                # lazily conjugated view is complex, which no fusion takes:
                # its dtype is refused.)
                raise _fusebox.FuseboxError(
                    f"{_label(i, fusion)} is a lazily negated view; pass x.resolve_neg()")
            # The cheap attributes: value.device makes a Python object.
            if value.is_cuda:
                kind, index = "cuda", value.get_device()
                if cuda_index is None:
                    cuda_index = index
            else:
                kind, index = "cpu", 0
            dtype = _dtype_names.get(value.dtype) or str(value.dtype).replace("torch.", "")
            described.append(("tensor", value.data_ptr(), value.shape, value.stride(), dtype,
                              kind, index))
        elif isinstance(value, (bool, int, float)):
            described.append(value)
        elif type(value).__name__ == "bool_":  # numpy's bool
            described.append(bool(value))
        elif isinstance(value, numbers.Integral):  # numpy's integers, among others
            described.append(int(value))
        elif isinstance(value, numbers.Real):  # numpy's float32, among others
            described.append(float(value))
        else:
            raise _fusebox.FuseboxError(
                f"{_label(i, fusion)} is a Python {type(value).__qualname__}, expected a torch "
                "tensor or a number"
            )
    return described, cuda_index


def bump_version(t):
    """Marks `t` as changed in place for autograd, as torch's in-place ops do
    (a tensor saved for backward then raises instead of giving a wrong
    gradient)."""
    torch = _torch()
    increment = getattr(torch.autograd.graph, "increment_version", None)
    if increment is not None:
        increment(t)
    else:  # torch < 2.1: an in-place op that changes nothing
        with torch.no_grad():
            t.copy_(t)


def current_stream(index):
    """torch's current stream on cuda:`index` as an integer (0: the legacy
    default stream), the cheap way where this torch has it."""
    torch = _torch()
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(index)
    return torch.cuda.current_stream(index).cuda_stream


_DTYPES = {
    "bool": "bool",
    "int32": "int32",
    "int64": "int64",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float": "float32",
    "double": "float64",
}


def nvfuser_dtype(dtype):
    """torch.float32 -> DataType.Float (a dtype fusebox lacks raises)."""
    from ._datatype import DataType

    torch = _torch()
    table = {
        torch.bool: DataType.Bool,
        torch.int32: DataType.Int32,
        torch.int64: DataType.Int,
        torch.float16: DataType.Half,
        torch.bfloat16: DataType.BFloat16,
        torch.float32: DataType.Float,
        torch.float64: DataType.Double,
    }
    if dtype not in table:
        raise _fusebox.FuseboxError(
            f"{dtype} has no fusebox dtype (supported: {', '.join(str(d) for d in table)})")
    return table[dtype]


def torch_dtype(name):
    return getattr(_torch(), _DTYPES[name])


def make_outputs(items, inputs):
    torch = _torch()
    # torch.utils.dlpack.from_dlpack is a Python wrapper of this one.
    from_dlpack = getattr(torch._C, "_from_dlpack", None) or torch.utils.dlpack.from_dlpack
    outputs = []
    for item in items:
        kind = item[0]
        if kind == "dlpack":
            t = from_dlpack(item[1])
            if item[2] == "bool":  # DLPack 0.6 carried it as uint8
                t = t.view(torch.bool)
            outputs.append(t)
        elif kind == "view":
            _, k, sizes, strides, offset, _ = item
            base = inputs[k]
            outputs.append(base.as_strided(sizes, strides, base.storage_offset() + offset))
        else:
            _, value, dtype = item
            outputs.append(torch.tensor(value, dtype=torch_dtype(dtype)))
    return outputs


def write_streams(dump, diagnostics):
    if dump:
        sys.stdout.write(dump)
    if diagnostics:
        sys.stderr.write(diagnostics)
