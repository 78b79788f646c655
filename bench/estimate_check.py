#!/usr/bin/env python3
"""How close `ardent info`'s estimates come to what `ardent simulate` takes.

For every bundled scene (its first source, a listener grid every 1.5 m, the CPU ARD solver at
--max-frequency, full band unless --band wave), at each duration and receiver count asked for
(the scene's receivers repeated or cut to that count), runs `ardent info --json`, then
`ardent simulate`, and compares the estimated peak memory (memory_bytes.ard_cpu) with the run's
peak resident memory (result.json memory.peak_rss_bytes) and the estimated wall time
(estimated_total_seconds.total.ard_cpu) with the run's own (timings_s.total). Prints one JSON
object: every run, and the largest ratio either way.

Usage: bench/estimate_check.py [--ardent build/cli/ardent] [--max-frequency 300]
           [--durations 1,4] [--receivers 1,8] [--band full|wave] [--threads 2] [SCENE...]
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def scene_variant(path, receivers, duration, args):
    s = json.loads(Path(path).read_text())
    base = Path(path).parent
    if "mesh" in s.get("geometry", {}):
        s["geometry"]["mesh"] = str((base / s["geometry"]["mesh"]).resolve())
    s["sources"] = s["sources"][:1]
    own = s["receivers"]
    s["receivers"] = [dict(own[i % len(own)], name=f"R{i + 1}") for i in range(receivers)]
    s["listener_grid"] = {"spacing_m": 1.5}
    sim = s.setdefault("simulation", {})
    sim.update({"solver": "ard", "device": "cpu", "max_frequency": args.max_frequency,
                "duration": duration, "band": args.band})
    return s


def run(args, scene_file, out):
    info = subprocess.run([args.ardent, "info", str(scene_file), "--json"], capture_output=True,
                          text=True, check=True)
    j = json.loads(info.stdout)
    t0 = time.monotonic()
    subprocess.run([args.ardent, "simulate", str(scene_file), "-o", str(out), "--quiet",
                    "--threads", str(args.threads)], check=True)
    wall = time.monotonic() - t0
    r = json.loads((out / "result.json").read_text())
    est_mem = j["memory_bytes"]["ard_cpu"]
    est_s = j["estimated_total_seconds"]["total"]["ard_cpu"]
    peak = r["memory"]["peak_rss_bytes"]
    tot = j["estimated_total_seconds"]
    t = r["timings_s"]
    return {"estimate_bytes": est_mem, "peak_rss_bytes": peak, "memory_ratio": est_mem / peak,
            "estimate_s": est_s, "wall_s": wall, "time_ratio": est_s / wall,
            "estimated_parts_s": {"wave": tot["wave_per_source"]["ard_cpu"],
                                  "geometric": tot["geometric_per_source"],
                                  "write": tot["write_per_source"]},
            "measured_parts_s": {"preprocess": t["preprocess"], "wave": sum(t["solve"].values()),
                                 "geometric": t["geometric"], "write": t["write"]},
            "grid_points": j["listener_points"]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ardent", default=str(ROOT / "build" / "cli" / "ardent"))
    p.add_argument("--max-frequency", type=float, default=300)
    p.add_argument("--durations", default="1,4")
    p.add_argument("--receivers", default="1,8")
    p.add_argument("--band", default="full", choices=["full", "wave"])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("scenes", nargs="*")
    args = p.parse_args()
    scenes = args.scenes or sorted(str(f) for f in (ROOT / "data" / "scenes").glob("*.json"))
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for scene in scenes:
            for duration in (float(d) for d in args.durations.split(",")):
                for receivers in (int(n) for n in args.receivers.split(",")):
                    name = f"{Path(scene).stem}-r{receivers}-d{duration:g}"
                    f = Path(tmp) / f"{name}.json"
                    f.write_text(json.dumps(scene_variant(scene, receivers, duration, args)))
                    row = {"scene": Path(scene).stem, "receivers": receivers,
                           "duration_s": duration}
                    row.update(run(args, f, Path(tmp) / f"{name}.ardent"))
                    print(json.dumps(row), file=sys.stderr)
                    runs.append(row)

    def worst(key):
        return max(max(r[key], 1 / r[key]) for r in runs)

    print(json.dumps({"max_frequency": args.max_frequency, "band": args.band,
                      "threads": args.threads, "runs": runs,
                      "worst_memory_factor": worst("memory_ratio"),
                      "worst_time_factor": worst("time_ratio")}, indent=1))


if __name__ == "__main__":
    main()
