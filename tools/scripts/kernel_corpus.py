#!/usr/bin/env python3
"""The kernel corpus: every kernel the test suite (and optionally the fuzzer)
generates, recorded to a folder, so that a change which must not change
generated code can prove it (docs/testing.md, "The kernel corpus").

  python3 tools/scripts/kernel_corpus.py record DIR [--build build/test]
          [--tests REGEX] [--fuzz-seed N --fuzz-cases N]
  python3 tools/scripts/kernel_corpus.py compare OLD NEW

`record` runs ctest (host backend kernels; GPU tests skip without a GPU) with
FUSEBOX_RECORD_KERNELS=DIR, but not the tests that run as another user (they
cannot write DIR; --exclude), and then `fusebox_fuzz fusions` when asked.
`compare` says whether two recordings hold the same kernels, byte for byte,
and lists those only one holds. Exit status: 0 same, 1 different, 2 bad use.
"""
import argparse
import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path


def record(args):
    out = Path(args.dir).resolve()
    build = Path(args.build).resolve()
    if not (build / "CTestTestfile.cmake").is_file():
        sys.exit(f"error: {build} is not a CMake build folder with tests (no CTestTestfile.cmake)")
    if out.exists():
        shutil.rmtree(out)
    # Recording happens before any cache lookup, so cached kernels are recorded too.
    env = dict(os.environ, FUSEBOX_RECORD_KERNELS=str(out))
    ctest = ["ctest", "--test-dir", str(build), f"-j{args.jobs}", "--output-on-failure"]
    if args.tests:
        ctest += ["-R", args.tests]
    if args.exclude:
        ctest += ["-E", args.exclude]
    if subprocess.run(ctest, env=env).returncode != 0:
        sys.exit("error: the tests failed while recording; the corpus is incomplete")
    if args.fuzz_cases:
        fuzz = [str(build / "bin" / "fusebox_fuzz"), "fusions", "--seed", str(args.fuzz_seed),
                "--cases", str(args.fuzz_cases), "-q"]
        if subprocess.run(fuzz, env=env).returncode != 0:
            sys.exit("error: the fuzzer found failures while recording")
    count = len(list(out.glob("*.cu"))) if out.is_dir() else 0
    print(f"recorded {count} kernels in {out}")


def kernels(folder):
    path = Path(folder)
    if not path.is_dir():
        sys.exit(f"error: {folder} is not a folder")
    return {p.name: p for p in path.glob("*.cu")}


def compare(args):
    old, new = kernels(args.old), kernels(args.new)
    only_old = sorted(set(old) - set(new))
    only_new = sorted(set(new) - set(old))
    print(f"{len(old)} kernels in {args.old}, {len(new)} in {args.new}, "
          f"{len(set(old) & set(new))} in both")
    if not only_old and not only_new:
        print("same kernels, byte for byte")
        return 0
    for name in only_old:
        print(f"only in {args.old}: {name}")
    for name in only_new:
        print(f"only in {args.new}: {name}")
    if args.diff and only_old and only_new:
        # The first of each side, to show what kind of change it is.
        a = old[only_old[0]].read_text().splitlines(keepends=True)
        b = new[only_new[0]].read_text().splitlines(keepends=True)
        sys.stdout.writelines(difflib.unified_diff(a, b, only_old[0], only_new[0]))
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="record the kernels the tests generate")
    r.add_argument("dir")
    r.add_argument("--build", default="build/test")
    r.add_argument("--tests", help="ctest -R regex (default: every test)")
    # Tests that run as another user (a user namespace) cannot write the folder.
    r.add_argument("--exclude", default="InAUserNamespace",
                   help="ctest -E regex (default: the tests that run as another user)")
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
