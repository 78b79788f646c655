#!/usr/bin/env python3
"""Sorts what a fuzz run found into Ardent's findings and the libraries' (docs/fuzzing.md).

Usage: scripts/fuzz_triage.py BUILD_DIR TARGET ARTIFACT...

Each artifact (a crash-, oom-, leak-, timeout- or slow-unit- input that libFuzzer saved) is
replayed alone through BUILD_DIR/fuzz/fuzz_TARGET, and the stack of what it reports decides:

  ardent       the first frame outside the sanitizer runtime, the C and C++ runtimes is Ardent's
               code (a source file of this repository): a finding to fix;
  library      that frame is in a Debian library (HDF5, Assimp, ...): a bug of theirs, listed in
               docs/fuzzing.md, which Ardent isolates or cannot fix;
  no repeat    the input runs clean alone: a library's state corrupted by earlier inputs of the
               same process (seen in Assimp), or a timeout that was the machine's load.

Prints one line per artifact and exits 1 when any is Ardent's.
"""

import os
import re
import subprocess
import sys

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
# "#4 0x7f.. in func /path/file.cpp:36:10", "#8 0x7f..  (/lib/.../libassimp.so.5+0x3c8979)",
# either with " (BuildId: ...)" after it.
FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+\s+(?:in (?P<func>.+?) )?\(?(?P<where>[^ ()]+)\)?$")
BUILD_ID = re.compile(r" \(BuildId: [0-9a-f]+\)$")
RUNTIME = re.compile(
    r"__asan|__sanitizer|__interceptor|__lsan|__ubsan|__libc|fuzzer::|LLVMFuzzer|"
    r"^operator new|^operator delete|^malloc$|^calloc$|^realloc$|^free$|^strdup$|^memcpy|"
    r"^memmove|^memset|^strlen|^abort$|^raise$|^__GI_|^_start$|^main$|^std::|^__cxa|^__gnu_cxx"
)
RUNTIME_LIBS = re.compile(r"libc\.so|libstdc\+\+|libgcc_s|libm\.so|ld-linux|libclang_rt")


def first_frame(report: str):
    """The first stack frame of the report in Ardent's code or in a library's (.so), passing over
    the sanitizers, the fuzzer and the C and C++ runtimes."""
    for line in report.splitlines():
        m = FRAME.match(BUILD_ID.sub("", line.rstrip()))
        if not m:
            continue
        func, where = m.group("func") or "?", m.group("where")
        if RUNTIME.search(func) or RUNTIME_LIBS.search(where):
            continue
        if where.startswith(REPO) or ".so" in where:
            return func, where
    return None


def classify(binary: str, target: str, artifact: str, env: dict):
    kind = os.path.basename(artifact).split("-")[1] if "-" in os.path.basename(artifact) else ""
    # The run's limits: the malloc limit at the RSS limit, so that an allocation that would pass
    # it is stopped with its stack (an RSS overrun has none), except for the HDF5 targets, whose
    # library allocates what a damaged header claims before it reports the error (scripts/fuzz).
    malloc_mb = 16384 if target in ("grid_reader", "sofa_reader") else 2048
    args = [binary, artifact, "-timeout=30", "-rss_limit_mb=2048", f"-malloc_limit_mb={malloc_mb}"]
    try:
        r = subprocess.run(args, capture_output=True, text=True, errors="replace", env=env,
                           timeout=300)
        out = r.stdout + r.stderr
        rc = r.returncode
    except subprocess.TimeoutExpired:
        return "ardent", "hangs for more than 300 s alone", kind
    if rc == 0:
        return "no repeat", "runs clean alone", kind
    frame = first_frame(out)
    what = next((l for l in out.splitlines() if "ERROR:" in l or "SUMMARY:" in l), "").strip()
    if frame is None:
        return "ardent", f"no stack to judge by ({what})", kind
    func, where = frame
    if where.startswith(REPO):
        return "ardent", f"{what} at {func} {where}", kind
    lib = os.path.basename(where.split("+")[0])
    return "library", f"{lib}: {func} ({what})", kind


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, target, artifacts = sys.argv[1], sys.argv[2], sys.argv[3:]
    binary = os.path.join(build, "fuzz", f"fuzz_{target}")
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "allocator_may_return_null=1")
    env["ASAN_OPTIONS"] += ":symbolize=1"
    ours = 0
    for a in artifacts:
        verdict, why, kind = classify(binary, target, a, env)
        ours += verdict == "ardent"
        print(f"  {verdict:9} {kind:8} {os.path.basename(a)}: {why}")
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
