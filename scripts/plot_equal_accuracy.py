#!/usr/bin/env python3
"""ARD against FDTD at equal accuracy (issue 21, item 5): the table and figure of docs/benchmarks.md
from the output of bench/bench_equal_accuracy (its "# seed ..." lines and one JSON object per run;
several logs may be concatenated, a later run of the same seed, solver and grid replacing an
earlier one).

Usage:
  python3 scripts/plot_equal_accuracy.py LOG [-o docs/images/equal-accuracy.png]

For each box and solver the cost at a relative error of 10 % and 5 % is interpolated log-log
between the coarsest grid that meets it and the one before (as the benchmark does); "<=" where the
coarsest grid run already meets it; where FDTD's finest grid misses it, the line through its two
finest grids is extrapolated ("~", an estimate) and its finest grid's cost gives a lower bound (">").
Prints a Markdown table; draws the figure when matplotlib is importable.
"""
import argparse
import json
import math
import re


def read_runs(path):
    """{(device, seed): {"f_max": Hz, "runs": {(solver, ppw): run}}} from a benchmark log."""
    boxes = {}
    current = None
    head = re.compile(r"^# seed (\d+): .* f_max (\S+) Hz.* device (\w+)")
    with open(path) as f:
        for line in f:
            m = head.match(line)
            if m:
                current = (m.group(3), int(m.group(1)))
                boxes.setdefault(current, {"f_max": float(m.group(2)), "runs": {}})
                continue
            if not line.startswith("{") or '"solver"' not in line or current is None:
                continue
            run = json.loads(line)
            boxes[current]["runs"][(run["solver"], run["ppw"])] = run
    return boxes


def cost_at(runs, target):
    """(cost, kind): kind "" interpolated, "<=" coarsest grid, "~" extrapolated, ">" lower bound."""
    for i, r in enumerate(runs):
        if r["relative_l2"] > target:
            continue
        if i == 0:
            return r["stepping_s"], "<="
        a = runs[i - 1]
        u = (math.log(target) - math.log(a["relative_l2"])) / (
            math.log(r["relative_l2"]) - math.log(a["relative_l2"]))
        return math.exp(math.log(a["stepping_s"]) +
                        u * (math.log(r["stepping_s"]) - math.log(a["stepping_s"]))), ""
    if len(runs) >= 2:
        p, q = runs[-2], runs[-1]
        slope = (math.log(q["relative_l2"]) - math.log(p["relative_l2"])) / (
            math.log(q["stepping_s"]) - math.log(p["stepping_s"]))
        if slope < 0:
            return q["stepping_s"] * math.exp(
                (math.log(target) - math.log(q["relative_l2"])) / slope), "~"
    return (runs[-1]["stepping_s"], ">") if runs else (None, "")


def ratio_text(fdtd, ard, fdtd_finest):
    (f, fk), (a, ak) = fdtd, ard
    if f is None or a is None:
        return "n/a"
    r = f / a
    if fk in (">", "~"):  # FDTD's finest grid missed the target: its cost is a lower bound
        text = f"> {fdtd_finest / a:.0f}"
        return text + (f" (~{r:.0f} extrapolated)" if fk == "~" else "")
    # ARD's coarsest grid already met it: ARD's cost is an upper bound, the ratio a lower one.
    return f"≥ {r:.0f}" if ak == "<=" else f"{r:.0f}"


def table(boxes):
    rows = ["| device | seed | f_max | ARD 10 % (s) | FDTD 10 % (s) | FDTD / ARD at 10 % | "
            "ARD 5 % (s) | FDTD 5 % (s) | FDTD / ARD at 5 % |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (device, seed), box in sorted(boxes.items()):
        by = {s: sorted((r for (sv, _), r in box["runs"].items() if sv == s),
                        key=lambda r: r["ppw"]) for s in ("ard", "fdtd")}
        cells = []
        for target in (0.10, 0.05):
            a, f = cost_at(by["ard"], target), cost_at(by["fdtd"], target)
            show = lambda c: "n/a" if c[0] is None else f"{c[1]}{c[0]:.3g}"
            finest = by["fdtd"][-1]["stepping_s"] if by["fdtd"] else None
            cells += [show(a), show(f), ratio_text(f, a, finest)]
        rows.append(f"| {'GPU' if device == 'cuda' else 'CPU'} | {seed} | {box['f_max']:.0f} | " +
                    " | ".join(cells) + " |")
    return "\n".join(rows)


def plot(boxes, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    devices = sorted({d for d, _ in boxes}, reverse=True)
    fig, axes = plt.subplots(1, len(devices), figsize=(6 * len(devices), 4.6), squeeze=False)
    for ax, device in zip(axes[0], devices):
        for (d, seed), box in sorted(boxes.items()):
            if d != device:
                continue
            colour = f"C{seed % 10}"
            for solver, style in (("ard", "-o"), ("fdtd", "--s")):
                runs = sorted((r for (s, _), r in box["runs"].items() if s == solver),
                              key=lambda r: r["ppw"])
                if not runs:
                    continue
                ax.loglog([r["stepping_s"] for r in runs], [r["relative_l2"] for r in runs],
                          style, color=colour, markersize=4,
                          label=f"{solver.upper()} seed {seed} ({box['f_max']:.0f} Hz)")
                for r in runs:
                    ax.annotate(f"{r['ppw']:g}", (r["stepping_s"], r["relative_l2"]),
                                fontsize=6, xytext=(3, 3), textcoords="offset points")
        for target in (0.10, 0.05):
            ax.axhline(target, color="grey", linewidth=0.6, linestyle=":")
        ax.set_xlabel("time stepping (s)")
        ax.set_ylabel("relative L2 error, 0.05-0.8 f_max, 0.5 s")
        ax.set_title(("one H200" if device == "cuda" else "CPU, 16 threads") +
                     ": error against cost (labels: points per wavelength)", fontsize=9)
        ax.grid(True, which="both", linewidth=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("-o", "--output")
    args = ap.parse_args()
    boxes = read_runs(args.log)
    print(table(boxes))
    if args.output:
        try:
            plot(boxes, args.output)
        except ImportError:
            print("matplotlib is not importable: no figure")


if __name__ == "__main__":
    main()
