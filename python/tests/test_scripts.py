"""Every script of examples/ and tests/data/ run as Python through the module
gives the fusion the script reader makes (the printed IR is identical) and,
on the inputs its `inputs = [...]` list makes, the same outputs and the same
in-place updates as `fusebox run` computes on the host backend."""

import ast
import pathlib
import re

import pytest
import torch

from fusebox import FusionDefinition, _fusebox
from fusebox._torch import make_outputs

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*ROOT.glob("examples/*.py"), *ROOT.glob("tests/data/**/*.py")])
# Scripts whose inputs are too large for a quick run on the host backend:
# their fusions are still compared.
LARGE = {"gelu_bias_grad.py", "cross_entropy.py", "layer_norm.py", "bias_gelu.py", "rope.py"}


def _arguments(items):
    """The reader's inputs as execute takes them: tensors, and numbers."""
    return [item[1] if item[0] == "scalar" else make_outputs([item], [])[0] for item in items]


def _on_cpu(source):
    # Debian's torch has no CUDA: the inputs list is made on the CPU.
    return re.sub(r"""device\s*=\s*(['"])cuda(:\d+)?\1""", "device='cpu'", source)


def _make_tensor_with_memory_format(make_tensor):
    """torch 1.13's make_tensor has no memory_format= (later ones do)."""

    def made(*args, memory_format=None, **kwargs):
        t = make_tensor(*args, **kwargs)
        return t if memory_format is None else t.contiguous(memory_format=memory_format)

    return made


def _module_level_first(tree, scope):
    """Runs the imports and the module-level assignments before the script,
    as the script reader binds them before its definition runs (nvFuser's
    tests assign `inputs` after the `with` block that reads it)."""
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign)):
            try:
                exec(compile(ast.Module([node], []), "<module level>", "exec"), scope)
            except Exception:
                pass  # it runs again, in order, with the whole script


def _run_as_python(path, monkeypatch):
    """Runs the script as Python; its execute calls are recorded, not run."""
    made = []

    def record(self, inputs, **kwargs):
        made.append(self)
        return [None] * 16

    monkeypatch.setattr(FusionDefinition, "execute", record)
    monkeypatch.setattr(torch.testing, "make_tensor",
                        _make_tensor_with_memory_format(torch.testing.make_tensor))
    tree = ast.parse(_on_cpu(path.read_text()), str(path))
    scope = {"__name__": "__main__", "__file__": str(path)}
    _module_level_first(tree, scope)
    exec(compile(tree, str(path), "exec"), scope)
    fds = [v for v in scope.values() if isinstance(v, FusionDefinition)]
    if not fds:
        # A script of one `def NAME(fd)` is that function's fusion.
        (function,) = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
        with FusionDefinition() as fd:
            scope[function](fd)
        fds = [fd]
    monkeypatch.undo()
    assert len(fds) == 1, f"{path.name}: expected one FusionDefinition, found {len(fds)}"
    return fds[0]


def test_the_corpus_is_there():
    assert len(SCRIPTS) >= 50


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_script_through_the_module(path, monkeypatch):
    run = path.name not in LARGE
    reader = _fusebox.read_script(str(path), 0, run)
    fd = _run_as_python(path, monkeypatch)
    assert fd.fusion_ir() == reader["ir"]
    assert repr(fd) == reader["python"]
    if "inputs" not in reader:
        return
    inputs = _arguments(reader["inputs"])
    outputs = fd.execute(inputs)
    # The reader's outputs: views among them are of the reader's own inputs.
    reader_inputs = _arguments(reader["inputs_after"])
    expected = make_outputs(reader["outputs"], reader_inputs)
    assert len(outputs) == len(expected)
    for k, (got, want) in enumerate(zip(outputs, expected)):
        assert got.dtype == want.dtype and got.shape == want.shape, f"output {k}"
        # The same kernels on the same inputs: equal, bit for bit.
        torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True, msg=f"output {k}")
    for k, (got, want) in enumerate(zip(inputs, reader_inputs)):
        if isinstance(got, torch.Tensor):
            torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True,
                                       msg=f"input {k} after the call")
