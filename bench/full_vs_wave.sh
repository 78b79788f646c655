#!/usr/bin/env bash
# What a whole `ardent simulate` takes with "band": "full" against "wave" (issue 20): each
# bundled scene at its own max_frequency, duration and listener grid, its first source only, run
# once per band; prints per scene the stages of result.json's timings_s and the full run's total
# over the wave run's. Usage: bench/full_vs_wave.sh ARDENT [--device D] [SCENE.json ...]
set -euo pipefail
ardent="$1"; shift
device=auto
if [ "${1:-}" = "--device" ]; then device="$2"; shift 2; fi
scenes=("$@")
[ ${#scenes[@]} -gt 0 ] || scenes=(data/scenes/*.json)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for scene in "${scenes[@]}"; do
  name=$(basename "$scene" .json)
  for band in wave full; do
    variant="$(dirname "$scene")/.fvw-$$-$name-$band.json"
    python3 - "$scene" "$variant" "$band" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["sources"] = s["sources"][:1]
s["simulation"]["band"] = sys.argv[3]
# Mesh paths are relative to the scene's folder: the variant sits beside it.
json.dump(s, open(sys.argv[2], "w"))
PY
    "$ardent" simulate "$variant" -o "$work/$name-$band" --device "$device" --quiet || true
    rm -f "$variant"
  done
done
python3 - "$work" "${scenes[@]}" <<'PY'
import json, os, sys
work, scenes = sys.argv[1], sys.argv[2:]
rows = []
for scene in scenes:
    name = os.path.basename(scene)[:-5]
    row = {"scene": name}
    for band in ("wave", "full"):
        f = os.path.join(work, f"{name}-{band}", "result.json")
        if not os.path.exists(f):
            row[band] = None
            continue
        r = json.load(open(f))
        t = r["timings_s"]
        row[band] = {k: (sum(v.values()) if isinstance(v, dict) else v) for k, v in t.items()}
        row["solver"] = r["solver"]["name"]
        row["max_frequency"] = r["settings"]["max_frequency"]
        row["duration"] = r["settings"]["duration"]
        row["receivers"] = len(r["receivers"])
        row["air_cells"] = r["statistics"]["air_cells"]
    if row.get("wave") and row.get("full"):
        row["full_over_wave"] = row["full"]["total"] / row["wave"]["total"]
    rows.append(row)
print(json.dumps(rows, indent=1))
for row in rows:
    if row.get("wave") and row.get("full"):
        print("%-12s %5.0f Hz %4.1f s %2d rcv: wave %7.1f s, full %7.1f s (geometric %6.1f s): %.2fx" % (
            row["scene"], row["max_frequency"], row["duration"], row["receivers"],
            row["wave"]["total"], row["full"]["total"], row["full"]["geometric"], row["full_over_wave"]))
PY
