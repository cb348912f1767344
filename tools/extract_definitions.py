#!/usr/bin/env python3
"""Extract nvFuser fusion definitions from a pytest file into standalone scripts.

nvFuser's Python tests (tests/python/.../test_*.py) define most fusions inside
a test function:

    def test_x(nvfuser_direct_test):
        inputs = [torch.randn(2, 4, device="cuda"), ...]

        def fusion_func(fd: FusionDefinition):
            ...

        nvf_out, _ = nvfuser_direct_test.exec_nvfuser(fusion_func, inputs)

This tool reads such a file with the `ast` module (nothing is imported or
run) and, for every test function that has both

  (a) a nested `def NAME(fd: FusionDefinition, ...)` (or, failing that, a
      `with FusionDefinition() as fd:` block), and
  (b) an `inputs = [...]` list literal assigned somewhere in the same test,

writes OUT/<test name>.py in the form `fusebox run` reads:

    import torch
    from nvfuser import FusionDefinition, DataType

    <module-level constants of the test file that the definition or the
     inputs list use>

    <the definition, exactly as written, dedented>

    with FusionDefinition() as fd:
        NAME(fd)

    inputs = [...]          # exactly as written, dedented

    fd.execute(inputs)

Names local to the test (sizes, dtypes, loop variables, `inputs[0]` inside the
definition) are left as they are: the script shows what the definition needs
that a straight-line reader does not have. When a test has several
definitions, the one the `with` block calls is taken, else the first.

Usage:

    python3 tools/extract_definitions.py TEST_FILE OUT_DIR [--prefix P] [--list]

It prints how many test functions it looked at, how many it extracted, how
many it skipped for want of a literal `inputs = [...]` list and how many had
no fusion definition at all; `--list` also names each skipped test.
"""

import argparse
import ast
import sys
import textwrap
from pathlib import Path

HEADER = "import torch\nfrom nvfuser import FusionDefinition, DataType\n"


def is_fd_annotation(node):
    """True for the annotation `FusionDefinition` (or `x.FusionDefinition`)."""
    if isinstance(node, ast.Name):
        return node.id == "FusionDefinition"
    if isinstance(node, ast.Attribute):
        return node.attr == "FusionDefinition"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.endswith("FusionDefinition")
    return False


def is_fd_def(node):
    """A function whose first parameter is annotated FusionDefinition."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    args = node.args.posonlyargs + node.args.args
    return bool(args) and args[0].annotation is not None and is_fd_annotation(
        args[0].annotation
    )


def is_fd_with(node):
    """`with FusionDefinition() as NAME:` (the first item)."""
    if not isinstance(node, ast.With) or not node.items:
        return False
    call = node.items[0].context_expr
    return (
        isinstance(call, ast.Call)
        and is_fd_annotation(call.func)
        and isinstance(node.items[0].optional_vars, ast.Name)
    )


def is_inputs_list(node):
    """`inputs = [...]` with a list literal on the right."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value = [node.target], node.value
    else:
        return False
    return (
        len(targets) == 1
        and isinstance(targets[0], ast.Name)
        and targets[0].id == "inputs"
        and isinstance(value, ast.List)
    )


def segment(source, node, lines):
    """The node's source text, with its first line's indentation, dedented.

    ast.get_source_segment starts at the node's column; put the indentation
    back so that textwrap.dedent sees every line as written. Decorators are
    included.
    """
    text = ast.get_source_segment(source, node)
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        # Decorators sit on lines of their own above the def: take their
        # lines (with indentation) and add the def's own segment.
        head = "".join(lines[decorators[0].lineno - 1 : node.lineno - 1])
        indent = lines[node.lineno - 1][: node.col_offset]
        return textwrap.dedent(head + indent + text)
    indent = lines[node.lineno - 1][: node.col_offset]
    if indent.strip():  # something before the node on its line: no padding
        indent = " " * node.col_offset
    return textwrap.dedent(indent + text)


def names_used(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def module_constants(tree):
    """Top-level `NAME = value` statements (simple names only), by name."""
    consts = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        else:
            continue
        for t in targets:
            if isinstance(t, ast.Name):
                consts[t.id] = stmt
    return consts


def constants_needed(nodes, consts):
    """The module constants that `nodes` use, transitively, in file order."""
    needed = set()
    todo = set()
    for n in nodes:
        todo |= names_used(n)
    while todo:
        name = todo.pop()
        if name in consts and name not in needed:
            needed.add(name)
            todo |= names_used(consts[name].value)
    stmts = {id(consts[n]): consts[n] for n in needed}
    return sorted(stmts.values(), key=lambda s: s.lineno)


def test_functions(tree):
    """Top-level test_* functions and test_* methods of Test* classes."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if stmt.name.startswith("test"):
                yield stmt.name, stmt
        elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
            for sub in stmt.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if sub.name.startswith("test"):
                        yield f"{stmt.name}.{sub.name}", sub


def walk_in_order(node):
    """Every node under `node`, in source order (ast.walk is breadth-first)."""
    nodes = [n for n in ast.walk(node) if hasattr(n, "lineno")]
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset))


def find_definition(test):
    """(def node or None, with node or None) for the test's fusion."""
    nodes = walk_in_order(test)
    defs = [n for n in nodes if n is not test and is_fd_def(n)]
    withs = [n for n in nodes if is_fd_with(n)]
    all_defs = {
        n.name: n
        for n in nodes
        if n is not test and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    # The function the first `with` block calls, when it is defined here.
    for w in withs:
        for stmt in w.body:
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Name)
                and stmt.value.func.id in all_defs
            ):
                called = all_defs[stmt.value.func.id]
                if called in defs or not defs:
                    return called, None
    if defs:
        return defs[0], None
    if withs:
        return None, withs[0]
    return None, None


def build_script(source, lines, consts, src_name, test_name, fdef, fwith, inputs):
    parts = [
        f"# Extracted from {src_name}::{test_name} by tools/extract_definitions.py\n",
        HEADER,
    ]
    used = [inputs] + ([fdef] if fdef is not None else [fwith])
    const_stmts = constants_needed(used, consts)
    if const_stmts:
        parts.append("\n" + "\n".join(segment(source, s, lines) for s in const_stmts) + "\n")
    if fdef is not None:
        parts.append("\n\n" + segment(source, fdef, lines) + "\n")
        parts.append(f"\n\nwith FusionDefinition() as fd:\n    {fdef.name}(fd)\n")
    else:
        body = "\n".join(segment(source, s, lines) for s in fwith.body)
        parts.append("\n\nwith FusionDefinition() as fd:\n" + textwrap.indent(body, "    ") + "\n")
    parts.append("\n" + segment(source, inputs, lines) + "\n")
    parts.append("\nfd.execute(inputs)\n")
    return "".join(parts)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Write one standalone fusebox-readable script per nvFuser "
        "test function that has a fusion definition and a literal "
        "`inputs = [...]` list.",
        epilog="Example: python3 tools/extract_definitions.py "
        "test_python_frontend.py /tmp/corpus/test_python_frontend",
    )
    ap.add_argument("test_file", type=Path, help="an nvFuser pytest file (read, never run)")
    ap.add_argument("out_dir", type=Path, help="folder for the scripts (created if missing)")
    ap.add_argument("--prefix", default="", help="prepend this to every script's file name")
    ap.add_argument("--list", action="store_true", help="name each skipped test and why")
    args = ap.parse_args(argv)

    source = args.test_file.read_text()
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source, filename=str(args.test_file))
    consts = module_constants(tree)
    args.out_dir.mkdir(parents=True, exist_ok=True)

    looked = extracted = no_inputs = no_definition = 0
    for test_name, test in test_functions(tree):
        looked += 1
        fdef, fwith = find_definition(test)
        if fdef is None and fwith is None:
            no_definition += 1
            if args.list:
                print(f"skipped (no fusion definition): {test_name}")
            continue
        inputs = next((n for n in walk_in_order(test) if is_inputs_list(n)), None)
        if inputs is None:
            no_inputs += 1
            if args.list:
                print(f"skipped (no literal inputs list): {test_name}")
            continue
        script = build_script(
            source, lines, consts, args.test_file.name, test_name, fdef, fwith, inputs
        )
        (args.out_dir / f"{args.prefix}{test_name}.py").write_text(script)
        extracted += 1

    print(
        f"{args.test_file.name}: looked at {looked} tests, extracted {extracted}, "
        f"skipped {no_inputs} without a literal inputs list, "
        f"{no_definition} without a fusion definition"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
