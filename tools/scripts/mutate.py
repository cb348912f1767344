#!/usr/bin/env python3
"""Mutation check: do the tests catch small planted bugs?

Copies the working tree to a scratch folder, builds it once, then for each
mutation in tools/mutations.toml replaces one exact piece of source text,
rebuilds incrementally, runs the test suite and restores the file. A mutation
the suite does not notice "survived": a test is missing or asserts too little.
Not part of CI (it takes minutes per mutation); docs/testing.md says when to
run it.

  python3 tools/scripts/mutate.py                 # every mutation, full suite
  python3 tools/scripts/mutate.py --only NAME...  # some of them
  python3 tools/scripts/mutate.py --quick         # only each mutation's `tests`
  python3 tools/scripts/mutate.py --list          # the mutations, nothing run

Exit status: 0 when every mutation was killed, 1 when one survived, 2 when a
mutation no longer applies (its text is not in the file exactly once) or the
tree does not build or pass without mutations.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_mutations(path):
    with open(path, "rb") as f:
        data = tomllib.load(f)
    mutations = data.get("mutation", [])
    names = set()
    for i, m in enumerate(mutations):
        where = f"{path}: mutation #{i + 1}"
        for key in ("name", "file", "find", "replace", "why", "tests"):
            if not isinstance(m.get(key), str) or not m[key]:
                if key == "replace" and isinstance(m.get(key), str):
                    continue  # deleting text is a mutation too
                sys.exit(f"{where}: `{key}` must be a non-empty string")
        if m["name"] in names:
            sys.exit(f"{where}: the name {m['name']!r} is used twice")
        if m["find"] == m["replace"]:
            sys.exit(f"{where} ({m['name']}): `find` and `replace` are the same")
        names.add(m["name"])
    return mutations


def run(cmd, cwd, log, timeout=None):
    """Runs cmd, appending its output to `log`; returns (exit status, output)."""
    started = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        out += f"\n[timed out after {timeout} s]\n"
        rc = 124
    with open(log, "a") as f:
        f.write(f"$ {' '.join(cmd)}  ({time.monotonic() - started:.0f} s, exit {rc})\n{out}\n")
    return rc, out


def copy_tree(dest):
    """The working tree as git sees it (tracked and untracked-not-ignored files)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, stdout=subprocess.PIPE, check=True).stdout.split(b"\0")
    # A file the tree no longer has goes from the copy too (a source that
    # CMake globs, or a header, would otherwise outlive its deletion).
    keep = {raw.decode() for raw in files if raw and (ROOT / raw.decode()).is_file()}
    if dest.exists():
        for path in dest.rglob("*"):
            rel = path.relative_to(dest).as_posix()
            if path.is_file() and not rel.startswith("build/") and rel not in keep:
                path.unlink()
    for raw in files:
        if not raw:
            continue
        rel = raw.decode()
        src = ROOT / rel
        if not src.is_file():
            continue  # deleted in the working tree
        dst = dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if not dst.exists() or dst.read_bytes() != src.read_bytes():
            shutil.copy2(src, dst)


def failed_tests(ctest_output):
    tail = ctest_output.split("The following tests FAILED:")[-1] if (
        "The following tests FAILED:" in ctest_output) else ""
    return re.findall(r"^\s*\d+ - (\S+)", tail, re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mutations", default=str(ROOT / "tools" / "mutations.toml"))
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run these mutations only")
    ap.add_argument("--quick", action="store_true",
                    help="run only the tests each mutation names (ctest -R), not the whole suite")
    ap.add_argument("--list", action="store_true", help="list the mutations and stop")
    ap.add_argument("--scratch", default=str(ROOT / "build" / "mutate"),
                    help="where the copy goes (its build is SCRATCH/src/build/mutate)")
    ap.add_argument("--jobs", type=int, default=2, help="ninja and ctest parallelism")
    ap.add_argument("--test-timeout", type=int, default=1800, help="seconds for one ctest run")
    ap.add_argument("--skip-baseline", action="store_true",
                    help="do not run the suite on the unmutated copy first")
    args = ap.parse_args()

    mutations = load_mutations(args.mutations)
    if args.only:
        unknown = set(args.only) - {m["name"] for m in mutations}
        if unknown:
            sys.exit(f"no mutation named {', '.join(sorted(unknown))} in {args.mutations}")
        mutations = [m for m in mutations if m["name"] in args.only]
    if args.list:
        for m in mutations:
            print(f"{m['name']:44} {m['file']}\n{'':44} {m['why']}\n{'':44} killed by: {m['tests']}")
        return 0

    scratch = Path(args.scratch)
    # The build sits at the same depth below the copy as build/<dir> below the
    # checkout, with the CI flags, so ccache (base_dir) finds what it compiled.
    src, log = scratch / "src", scratch / "mutate.log"
    build = src / "build" / "mutate"
    src.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    copy_tree(src)

    # Every mutation must apply before anything is built.
    stale = []
    for m in mutations:
        text = (src / m["file"]).read_text() if (src / m["file"]).is_file() else None
        count = text.count(m["find"]) if text is not None else 0
        if count != 1:
            stale.append(f"{m['name']}: its text occurs {count} times in {m['file']} (expected once)")
    if stale:
        print("mutations that no longer apply (update tools/mutations.toml):", *stale, sep="\n  ")
        return 2

    configure = ["cmake", "-S", ".", "-B", "build/mutate", "-G", "Ninja",
                 "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DFUSEBOX_WERROR=ON"]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    ninja = ["ninja", "-C", str(build), f"-j{args.jobs}"]
    ctest = ["ctest", "--test-dir", str(build), f"-j{args.jobs}", "--timeout", "600"]

    print(f"building the unmutated copy in {build} (log: {log})", flush=True)
    if run(configure, src, log)[0] != 0 or run(ninja, src, log)[0] != 0:
        print("the unmutated tree does not build; see the log")
        return 2
    if not args.skip_baseline:
        rc, out = run(ctest, src, log, args.test_timeout)
        if rc != 0:
            print("the unmutated tree fails tests:", *failed_tests(out), sep="\n  ")
            return 2

    results = []
    for m in mutations:
        path = src / m["file"]
        original = path.read_text()
        path.write_text(original.replace(m["find"], m["replace"], 1))
        started = time.monotonic()
        try:
            if run(ninja, src, log)[0] != 0:
                status, killers = "does not build", []
            else:
                cmd = ctest + (["-R", m["tests"]] if args.quick else [])
                rc, out = run(cmd, src, log, args.test_timeout)
                killers = failed_tests(out)
                if rc == 0:
                    status = "SURVIVED"
                elif "No tests were found" in out:
                    status, killers = "no tests matched", []
                else:
                    status = "killed"
        finally:
            path.write_text(original)
        seconds = time.monotonic() - started
        results.append((m, status, killers, seconds))
        shown = ", ".join(killers[:4]) + (f" (+{len(killers) - 4} more)" if len(killers) > 4 else "")
        print(f"{status:16} {m['name']:44} {seconds:5.0f} s  {shown}", flush=True)

    survived = [m["name"] for m, s, _, _ in results if s != "killed"]
    print(f"\n{len(results) - len(survived)} of {len(results)} mutations killed"
          + (f"; not killed: {', '.join(survived)}" if survived else ""))
    run(ninja, src, log)  # leave the copy built unmutated
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
