"""torch tensors to the extension's input descriptors and its outputs back to
torch tensors. torch is imported when a fusion first runs, never linked:
one build serves every torch version."""

import sys

from . import _fusebox


def _torch():
    import torch

    return torch


def _describe_input(value, index, names):
    torch = _torch()
    if isinstance(value, torch.Tensor):
        # A bool tensor is passed by its data pointer like any other: the
        # extension never asks torch for a DLPack capsule of an input.
        device = value.device
        return (
            "tensor",
            value.data_ptr(),
            tuple(value.shape),
            tuple(value.stride()),
            str(value.dtype).replace("torch.", ""),
            device.type,
            device.index if device.index is not None else 0,
        )
    if isinstance(value, (bool, int, float)):
        return value
    label = f"input {index} ({names[index]})" if index < len(names) else f"input {index}"
    raise _fusebox.FuseboxError(
        f"{label} is a Python {type(value).__qualname__}, expected a torch tensor or a number"
    )


def describe_inputs(inputs, names):
    if not isinstance(inputs, (list, tuple)):
        raise _fusebox.FuseboxError(
            f"execute takes a list of inputs, got a Python {type(inputs).__qualname__}"
        )
    return [_describe_input(v, i, names) for i, v in enumerate(inputs)]


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
    outputs = []
    for item in items:
        kind = item[0]
        if kind == "dlpack":
            t = torch.utils.dlpack.from_dlpack(item[1])
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
