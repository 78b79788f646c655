#!/usr/bin/env bash
# Where a distributed ARD step's time goes, per rank (issue 22): bench_ard_cuda on one GPU and
# then under mpirun on N GPUs with --distributed, at the same scene and max_frequency. Each rank
# prints its cells, halo, steps per second (graphs, exchanges included) and its stages; with
# ARDENT_HALO=host the stages leave the exchanges out (each rank's own work alone).
# Usage: bench/distributed_profile.sh BENCH_ARD_CUDA SCENE.json F_MAX RANKS [STEPS]
set -euo pipefail
bench="$1" scene="$2" fmax="$3" ranks="$4" steps="${5:-500}"
root=(); [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
summary() {
  python3 -c '
import json, sys
for line in sys.stdin:
    line = line.strip()
    if not line.startswith("{"): continue
    r = json.loads(line)
    st = " ".join("%s=%.3f" % (s["stage"].replace(" ", "_"), s["ms_per_step"]) for s in r["stages"])
    print("rank %s/%s cells %s halo %s parts %s: %.1f steps/s (%.3f ms), profiled %.3f ms: %s" % (
        r.get("rank", 0), r.get("ranks", 1), r.get("rank_cells", r["air_cells"]),
        r.get("rank_halo_cells", 0), r.get("rank_partitions", r["partitions"]), r["steps_per_s"],
        1e3 / r["steps_per_s"], r["profiled_ms_per_step"], st))
'
}
echo "# 1 GPU, $scene at $fmax Hz"
"$bench" "$scene" --max-frequency "$fmax" --steps "$steps" | tr -d '\n' | sed 's/$/\n/' | summary
for halo in nccl host; do
  echo "# $ranks GPUs, exchange $halo"
  ARDENT_HALO=$halo mpirun -n "$ranks" --bind-to none "${root[@]}" -x LD_LIBRARY_PATH \
    -x OMP_NUM_THREADS -x ARDENT_HALO "$bench" "$scene" --max-frequency "$fmax" \
    --steps "$steps" --distributed | summary
done
