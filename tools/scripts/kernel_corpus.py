#!/usr/bin/env python3
"""The kernel corpus: every kernel the test suite (and optionally the fuzzer)
generates, recorded to a folder, so that a change which must not change
generated code can prove it (docs/testing.md, "The kernel corpus").

  python3 tools/scripts/kernel_corpus.py record DIR [--build build/test]
          [--tests REGEX] [--fuzz-seed N --fuzz-cases N]
  python3 tools/scripts/kernel_corpus.py compare OLD NEW

`record` runs ctest (host backend kernels; GPU tests skip without a GPU) with
FUSEBOX_RECORD_KERNELS=DIR, but not the tests that run as another user (they
cannot write DIR), and then `fusebox_fuzz fusions --backend host` when asked.
`compare` says whether two recordings hold the same kernels, byte for byte,
and lists those only one holds (`--diff`: the first changed one, paired by
its scheduler and params). Exit status: 0 same, 1 different, 2 bad use.
"""
import argparse
import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path


def fail(message):
    print(f"error: {message.strip()}", file=sys.stderr)
    sys.exit(2)


def record(args):
    out = Path(args.dir).resolve()
    build = Path(args.build).resolve()
    if not (build / "CTestTestfile.cmake").is_file():
        fail(f" {build} is not a CMake build folder with tests (no CTestTestfile.cmake)")
    if out.exists():
        # Only a recording is replaced: anything else there is refused.
        stray = [p.name for p in out.iterdir() if p.suffix != ".cu" and not p.name.startswith(".")]
        if not out.is_dir() or stray:
            fail(f" {out} exists and is not a recording (it holds {stray[:3]}); "
                     "give an empty or new folder")
        shutil.rmtree(out)
    # Recording happens before any cache lookup, so cached kernels are recorded too.
    env = dict(os.environ, FUSEBOX_RECORD_KERNELS=str(out))
    ctest = ["ctest", "--test-dir", str(build), f"-j{args.jobs}", "--output-on-failure"]
    if args.tests:
        ctest += ["-R", args.tests]
    # Tests that run as another user (a user namespace) cannot write the folder.
    exclude = "InAUserNamespace" + (f"|{args.exclude}" if args.exclude else "")
    ctest += ["-E", exclude]
    if subprocess.run(ctest, env=env).returncode != 0:
        fail(" the tests failed while recording; the corpus is incomplete")
    if args.fuzz_cases:
        # Every case on the host backend: only host cases compile kernels.
        fuzz = [str(build / "bin" / "fusebox_fuzz"), "fusions", "--seed", str(args.fuzz_seed),
                "--cases", str(args.fuzz_cases), "--backend", "host", "-q"]
        if subprocess.run(fuzz, env=env).returncode != 0:
            fail(" the fuzzer found failures while recording")
    count = len(list(out.glob("*.cu"))) if out.is_dir() else 0
    print(f"recorded {count} kernels in {out}")


def kernels(folder):
    path = Path(folder)
    if not path.is_dir():
        fail(f" {folder} is not a folder")
    return {p.name: p for p in path.glob("*.cu")}


def header(path):
    """The kernel's comment lines before its code: scheduler and params."""
    lines = []
    for line in path.read_text().splitlines():
        if line.startswith("#include"):
            break
        if not line.startswith("// kernel:"):
            lines.append(line)
    return "\n".join(lines)


def compare(args):
    old, new = kernels(args.old), kernels(args.new)
    both = sorted(set(old) & set(new))
    # Names carry a hash of the contents; the contents are compared all the same.
    changed = [n for n in both if old[n].read_bytes() != new[n].read_bytes()]
    only_old = sorted(set(old) - set(new))
    only_new = sorted(set(new) - set(old))
    print(f"{len(old)} kernels in {args.old}, {len(new)} in {args.new}, {len(both)} in both")
    if not only_old and not only_new and not changed:
        print("same kernels, byte for byte")
        return 0
    for name in changed:
        print(f"same name, other contents: {name}")
    for name in only_old:
        print(f"only in {args.old}: {name}")
    for name in only_new:
        print(f"only in {args.new}: {name}")
    if args.diff and only_old and only_new:
        # A kernel that changed keeps its scheduler and params: pair by them.
        by_header = {header(new[n]): n for n in only_new}
        pair = next(((o, by_header[header(old[o])]) for o in only_old
                     if header(old[o]) in by_header), (only_old[0], only_new[0]))
        a = old[pair[0]].read_text().splitlines(keepends=True)
        b = new[pair[1]].read_text().splitlines(keepends=True)
        sys.stdout.writelines(difflib.unified_diff(a, b, pair[0], pair[1]))
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="record the kernels the tests generate")
    r.add_argument("dir")
    r.add_argument("--build", default="build/test")
    r.add_argument("--tests", help="ctest -R regex (default: every test)")
    r.add_argument("--exclude", help="ctest -E regex, besides the tests that run as another "
                   "user (always left out: they cannot write the folder)")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--fuzz-seed", type=int, default=1)
    r.add_argument("--fuzz-cases", type=int, default=0)
    c = sub.add_parser("compare", help="compare two recordings")
    c.add_argument("old")
    c.add_argument("new")
    c.add_argument("--diff", action="store_true", help="diff one kernel of each side")
    args = ap.parse_args()
    if args.command == "record":
        record(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
