#!/usr/bin/env python3
"""Writes the BRAS CR2 comparison CSV (bras_cr2_<solver>_<device>_<f_max>.csv, the columns
tests/support/bras_cr2.h writes) from a results directory of `ardent simulate` on the CR2 scene:
the ISO 3382-1 T20 and EDT in its result.json, averaged over MP01-MP05, against the measured octave
values (the mean of the octave's three third-octave bands in Evaluation_CR2_*.txt).

Usage: scripts/bras_cr2_from_results.py RESULTS_DIR BRAS_CR2_DIR OUT_FOLDER
(for scripts/plot_validation.py; used for the GPU runs, whose tests cannot run on the device).
"""
import json
import os
import sys


def rows(path):
    out = []
    for line in open(path):
        cells = [c for c in line.strip().split(",") if c.strip()]
        if cells:
            out.append([float(c) for c in cells])
    return out


def measured(bras, parameter, octave):
    r = rows(os.path.join(bras, f"Evaluation_CR2_{parameter}.txt"))
    vals = [v for f, v in zip(r[0], r[1]) if 0.7 < f / octave < 1.42]
    return sum(vals) / len(vals) if len(vals) == 3 else float("nan")


def main():
    results, bras, out = sys.argv[1:4]
    r = json.load(open(os.path.join(results, "result.json")))
    solver = r["solver"]["name"].split("-")[0]
    device = "h100" if r["solver"]["device"] == "cuda" else "cpu"
    f_max = r["settings"]["max_frequency"]
    sums, counts = {}, {}
    for pair in r["acoustics"]:
        for b in pair["iso3382"]["bands"]:
            hz = b["centre_hz"]
            if hz < 125 or hz > 0.7 * f_max or b.get("t20_s") is None or b.get("edt_s") is None:
                continue
            s = sums.setdefault(hz, [0.0, 0.0])
            s[0] += b["t20_s"]
            s[1] += b["edt_s"]
            counts[hz] = counts.get(hz, 0) + 1
    name = os.path.join(out, f"bras_cr2_{solver}_{device}_{int(f_max)}.csv")
    with open(name, "w") as f:
        f.write("octave_hz,t20_s,t20_measured_s,edt_s,edt_measured_s\n")
        for hz in sorted(sums):
            n = counts[hz]
            t20, edt = sums[hz][0] / n, sums[hz][1] / n
            mt, me = measured(bras, "T20", hz), measured(bras, "EDT", hz)
            f.write(f"{hz:g},{t20:.6g},{mt:.6g},{edt:.6g},{me:.6g}\n")
            print(f"{solver} {device} {f_max:g} Hz, {hz:g} Hz: T20 {t20:.3f}/{mt:.3f} ({t20 / mt:.3f}), "
                  f"EDT {edt:.3f}/{me:.3f} ({edt / me:.3f})")
    print("wrote", name)


if __name__ == "__main__":
    main()
