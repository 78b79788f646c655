#!/usr/bin/env python3
"""Markdown tables from a `scripts/gpu-check run` log (docs/benchmarks.md quotes them): the
bench_ard_cuda and bench_ard_cpu JSON reports, one summary row per run and the per-stage
breakdown of each CUDA run. Usage: scripts/gpu_tables.py gpu-check.log"""
import json
import re
import sys


def reports(text):
    """(command, report) for every JSON object printed after a '=== ...' step line."""
    out, cmd = [], None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("=== "):
            cmd = line[4:]
        if line.strip() == "{" and cmd:
            depth, j, buf = 0, i, []
            while j < len(lines):
                buf.append(lines[j])
                depth += lines[j].count("{") - lines[j].count("}")
                if depth == 0:
                    break
                j += 1
            try:
                out.append((cmd, json.loads("\n".join(buf))))
            except json.JSONDecodeError:
                pass
            i = j
        i += 1
    return out


def main():
    text = open(sys.argv[1]).read()
    runs = reports(text)
    print("| scene | scale | solver | air cells | PML cells | partitions | steps/s |"
          " air cell-steps/s | s per simulated s | memory |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for _, r in runs:
        if "air_cell_steps_per_s" not in r:
            continue
        mem = r.get("gpu_memory_bytes")
        if mem is None and "solver_bytes_per_air_cell" in r:
            mem = r["solver_bytes_per_air_cell"] * r["air_cells"]
        name = re.sub(r"\s*\(.*\)$", "", r["scene"])
        print(f"| {name} | {r.get('scale', 1):g} | {r['solver']} | {r['air_cells'] / 1e6:.2f} M |"
              f" {r['pml_cells'] / 1e6:.2f} M | {r['partitions']} | {r['steps_per_s']:.1f} |"
              f" {r['air_cell_steps_per_s'] / 1e9:.3g} G | {r['seconds_per_simulated_second']:.3g} |"
              f" {mem / 1e6:.0f} MB |")
    for _, r in runs:
        if "stages" not in r:
            continue
        total = sum(s["ms_per_step"] for s in r["stages"])
        name = re.sub(r"\s*\(.*\)$", "", r["scene"])
        print(f"\n{name} × {r.get('scale', 1):g}: {total:.3f} ms per step stage by stage"
              f" ({1e3 / r['steps_per_s']:.3f} ms in the graph); copy bandwidth"
              f" {r['copy_bandwidth_bytes_per_s'] / 1e12:.2f} TB/s\n")
        print("| stage | ms/step | share | of copy bandwidth |")
        print("| --- | --- | --- | --- |")
        for s in r["stages"]:
            frac = s["fraction_of_copy_bandwidth"]
            print(f"| {s['stage']} | {s['ms_per_step']:.3f} | {100 * s['ms_per_step'] / total:.1f} % |"
                  f" {100 * frac:.1f} % |" if frac > 1e-3 else
                  f"| {s['stage']} | {s['ms_per_step']:.3f} | {100 * s['ms_per_step'] / total:.1f} % | – |")


if __name__ == "__main__":
    main()
