#!/usr/bin/env bash
# `ardent simulate` end to end on a hall, as a user runs it (issue 21's run): the scene's first
# S sources (beyond its own, added between receivers), its receivers and listener grid, at a
# given max_frequency and duration; prints the stages of result.json's timings_s, the grid files'
# size and the peak memory, as one JSON object.
# Usage: bench/end_to_end.sh ARDENT [SCENE.json] [--max-frequency F] [--duration T] [--sources S]
#        [--device D] [--every N] [--band wave|full]
# Defaults: data/scenes/musikverein.json, 1650 Hz, 1 s, 1 source, cuda, the scene's grid. The
# results directory goes to a temporary folder that is removed afterwards.
set -euo pipefail
ardent="$1"; shift
scene=data/scenes/musikverein.json
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then scene="$1"; shift; fi
fmax=1650 duration=1 sources=1 device=cuda every="" band=""
while [ $# -gt 0 ]; do
  case "$1" in
    --max-frequency) fmax="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --sources) sources="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --every) every="$2"; shift 2 ;;
    --band) band="$2"; shift 2 ;;
    *) echo "end_to_end.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The scene next to the original, so that its mesh path still resolves.
variant="$(dirname "$scene")/.end-to-end-$$.json"
trap 'rm -rf "$work" "$variant"' EXIT
python3 - "$scene" "$variant" "$fmax" "$duration" "$sources" "$every" "$band" <<'PY'
import json, sys
scene, out, fmax, duration, sources, every, band = sys.argv[1:]
s = json.load(open(scene))
s["sources"] = s["sources"][: int(sources)]
# More sources than the scene has: the next ones halfway between successive receivers (ear
# height over the audience, so in air), named S<n>.
k = 0
while len(s["sources"]) < int(sources):
    a, b = s["receivers"][k]["position"], s["receivers"][k + 1]["position"]
    s["sources"].append({"name": "S%d" % (len(s["sources"]) + 1),
                         "position": [(x + y) / 2 for x, y in zip(a, b)]})
    k += 2
s["simulation"]["max_frequency"] = float(fmax)
s["simulation"]["duration"] = float(duration)
if every:
    s["listener_grid"] = {"every": int(every)}
if band:
    s["simulation"]["band"] = band
json.dump(s, open(out, "w"))
PY
/usr/bin/time -f "%M" -o "$work/rss" "$ardent" simulate "$variant" -o "$work/out" --device "$device" \
  --quiet > "$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
python3 - "$work" "$scene" "$fmax" "$duration" "$sources" "$device" <<'PY'
import json, os, sys
work, scene, fmax, duration, sources, device = sys.argv[1:]
r = json.load(open(os.path.join(work, "out", "result.json")))
grid = os.path.join(work, "out", "grid")
size = sum(os.path.getsize(os.path.join(grid, f)) for f in os.listdir(grid)) if os.path.isdir(grid) else 0
t = r["timings_s"]
print(json.dumps({
    "scene": scene, "max_frequency": float(fmax), "duration": float(duration),
    "sources": int(sources), "device": device, "solver": r["solver"].get("name"),
    "timings_s": t, "write_share": t["write"] / t["total"],
    "grid_bytes": size, "peak_rss_mb": int(open(os.path.join(work, "rss")).read().split()[-1]) / 1024,
}, indent=2))
PY
