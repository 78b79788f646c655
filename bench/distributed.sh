#!/usr/bin/env bash
# A distributed ARD run against the same run in one process (issue 22): the scene's first source,
# its receivers, no listener grid, the wave band, at a given max_frequency and duration, in 1 and
# then N ranks under mpirun (one GPU per rank with --device cuda). Prints per rank count the solve
# time, steps per second and each rank's cells and halo, the speed-up and efficiency against one
# rank, and the largest relative L2 difference of the IR WAVs from the one-process run.
# Usage: bench/distributed.sh ARDENT [SCENE.json] [--max-frequency F] [--duration T]
#        [--device D] [--ranks "2 4"] [--threads T]
set -euo pipefail
ardent="$1"; shift
scene=data/scenes/musikverein.json
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then scene="$1"; shift; fi
fmax=1650 duration=0.25 device=cuda ranks="2" threads=0
while [ $# -gt 0 ]; do
  case "$1" in
    --max-frequency) fmax="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --ranks) ranks="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    *) echo "distributed.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
variant="$(dirname "$scene")/.distributed-$$.json"
trap 'rm -rf "$work" "$variant"' EXIT
python3 - "$scene" "$variant" "$fmax" "$duration" <<'PY'
import json, sys
scene, out, fmax, duration = sys.argv[1:]
s = json.load(open(scene))
s["sources"] = s["sources"][:1]
s.pop("listener_grid", None)
s["simulation"].update({"max_frequency": float(fmax), "duration": float(duration), "band": "wave"})
json.dump(s, open(out, "w"))
PY
root=(); [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
# FFTW wisdom (CPU backend) shared by every run, so that all transform alike.
export XDG_CACHE_HOME="$work/cache"
"$ardent" simulate "$variant" -o "$work/r1" --device "$device" --threads "$threads" --quiet
for n in $ranks; do
  # One rank per GPU or per share of the cores; threads are not bound to one core.
  mpirun -n "$n" --oversubscribe --bind-to none "${root[@]}" -x XDG_CACHE_HOME \
    -x LD_LIBRARY_PATH -x OMP_NUM_THREADS -x NCCL_NVLS_ENABLE -x ARDENT_HALO \
    "$ardent" simulate "$variant" -o "$work/r$n" --device "$device" --threads "$threads" \
    --distributed --quiet
done
python3 - "$work" "$scene" "$fmax" "$duration" "$device" 1 $ranks <<'PY'
import json, os, sys, glob
import numpy as np
from scipy.io import wavfile
work, scene, fmax, duration, device = sys.argv[1:6]
counts = [int(n) for n in sys.argv[6:]]
base = None
rows = []
for n in counts:
    d = os.path.join(work, f"r{n}")
    r = json.load(open(os.path.join(d, "result.json")))
    solve = sum(r["timings_s"]["solve"].values())
    setup = sum(r["timings_s"].get("solver_setup", {}).values())
    steps = r["solver"]["steps"]
    worst = 0.0
    for f in glob.glob(os.path.join(work, "r1", "ir", "*.wav")):
        x = wavfile.read(f)[1].astype(np.float64)
        y = wavfile.read(os.path.join(d, "ir", os.path.basename(f)))[1].astype(np.float64)
        worst = max(worst, float(np.linalg.norm(x - y) / max(np.linalg.norm(x), 1e-300)))
    dist = r.get("distributed", {})
    stepping = solve - setup
    if base is None:
        base = stepping
    rows.append({"ranks": n, "solver": r["solver"]["name"], "exchange": dist.get("exchange", ""),
                 "solve_s": solve, "setup_s": setup,
                 "steps_per_s": steps / stepping, "speed_up": base / stepping,
                 "efficiency": base / stepping / n, "worst_rel_l2_vs_1": worst,
                 "cells": dist.get("cells", [r["statistics"]["air_cells"]]),
                 "halo_cells": dist.get("halo_cells", [0]),
                 "preprocess_s": r["timings_s"]["preprocess"], "total_s": r["timings_s"]["total"]})
print(json.dumps({"scene": scene, "max_frequency": float(fmax), "duration": float(duration),
                  "device": device, "air_cells": r["statistics"]["air_cells"],
                  "partitions": r["statistics"]["partitions"], "runs": rows}, indent=1))
PY
