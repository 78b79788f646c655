#!/usr/bin/env python3
"""Draws the validation figures of docs/validation.md from the CSVs the tests write.

Usage:
  ARDENT_VALIDATION_OUT=out/validation build/tests/test_ard_validation_long
  ARDENT_VALIDATION_OUT=out/validation build/tests/test_ard_validation      # CI-size runs
  ARDENT_VALIDATION_OUT=out/validation build/tests/test_convolution         # convolution
  ARDENT_VALIDATION_OUT=out/validation build/tests/test_partitioned_convolver
  ARDENT_VALIDATION_OUT=out/validation build/tests/test_analysis            # ISO 3382-1
  ARDENT_VALIDATION_OUT=out/validation build/tests/test_bras_cr2            # BRAS CR2 (and _long)
  python3 scripts/plot_validation.py out/validation [-o docs/images]

Each figure uses the long run's CSV when present and the CI run's (suffix _ci) otherwise; figures
whose CSVs are missing are skipped with a note. Needs python3 with numpy and matplotlib.
"""
import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, data = rows[0], rows[1:]
    return {name: [float(r[i]) for r in data] for i, name in enumerate(header)}


def find(folder, *names):
    for n in names:
        p = os.path.join(folder, n)
        if os.path.exists(p):
            return p
    return None


def pick(folder, stem, suffix=".csv"):
    """The long run's file, else the CI run's."""
    return find(folder, stem + suffix, stem + "_ci" + suffix)


def log_frequency_axis(ax, lo=40, hi=1000):
    ticks = [t for t in (50, 100, 200, 300, 500, 800, 1000, 2000) if lo <= t <= hi]
    ax.set_xscale("log")
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.minorticks_off()


def save(fig, out, name, dpi=110, palette=False):
    path = os.path.join(out, "validation-" + name + ".png")
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    if palette:
        # Line plots need few colours: a 64-colour palette makes the file several times smaller.
        try:
            from PIL import Image
            Image.open(path).convert("RGB").quantize(64).save(path, optimize=True)
        except ImportError:
            pass
    print("wrote", path)


def plot_box(folder, out, stem, title, bar):
    path = pick(folder, stem)
    if not path:
        print("skip", stem, "(no CSV)")
        return
    d = read_csv(path)
    t, a, r = d["t_s"], d["ard"], d["image_source"]
    err = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, r)) / sum(y * y for y in r))
    fig, axes = plt.subplots(3, 1, figsize=(9, 8))
    for ax, (t0, t1) in zip(axes[:2], [(t[0], t[-1]), (t[0], min(t[-1], 0.06))]):
        ax.plot(t, r, color="k", lw=1.2, label="image sources")
        ax.plot(t, a, color="tab:orange", lw=0.8, ls="--", label="ARD")
        ax.set_xlim(t0, t1)
        ax.set_ylabel("pressure (band 0.05-0.8 f_max)")
        ax.legend(loc="upper right")
    axes[0].set_title(f"{title}: relative L2 error {100 * err:.2f} % (bar {bar} %)"
                      f"  [{os.path.basename(path)}]")
    axes[1].set_title("first 60 ms")
    axes[2].plot(t, [x - y for x, y in zip(a, r)], color="tab:red", lw=0.8)
    axes[2].set_ylabel("ARD - reference")
    axes[2].set_xlabel("time (s)")
    fig.tight_layout()
    save(fig, out, stem.replace("_", "-"))


def plot_modes(folder, out, stem, title):
    spec = pick(folder, stem, "_spectrum.csv")
    modes = pick(folder, stem, "_modes.csv")
    analytic = pick(folder, stem, "_analytic.csv")
    if not (spec and modes and analytic):
        print("skip", stem, "(no CSV)")
        return
    s, m, a = read_csv(spec), read_csv(modes), read_csv(analytic)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(10, 7),
                                   gridspec_kw={"height_ratios": [2, 1]})
    for f in a["f_hz"]:
        ax1.axvline(f, color="0.85", lw=0.5, zorder=0)
    for f in m["f_analytic_hz"]:
        ax1.axvline(f, color="tab:green", lw=0.8, ls=":", zorder=1)
    ax1.plot(s["f_hz"], s["level_db"], color="k", lw=0.7, zorder=2)
    ax1.set_ylim(-100, 5)
    ax1.set_ylabel("level (dB re peak)")
    ax1.set_title(f"{title}: spectrum; grey = analytic modes, green = isolated modes checked")
    ax2.axhspan(-0.5, 0.5, color="tab:green", alpha=0.12, label="bar ±0.5 %")
    err = [100 * (fm - fa) / fa for fa, fm in zip(m["f_analytic_hz"], m["f_measured_hz"])]
    ax2.plot(m["f_analytic_hz"], err, "o", color="tab:blue", ms=4, label="measured peak")
    worst = max((abs(e) for e in err), default=0)
    ax2.set_ylabel("peak - analytic (%)")
    ax2.set_xlabel("frequency (Hz)")
    ax2.set_title(f"{len(err)} modes, largest error {worst:.3f} %")
    ax2.set_xlim(ax1.get_xlim())
    lim = max(0.6, 1.2 * worst)
    ax2.set_ylim(-lim, lim)
    ax2.legend(loc="upper left")
    fig.tight_layout()
    save(fig, out, stem.replace("_", "-"))


def plot_reflection(folder, out):
    cases = [("reflection_interface.csv", "interface between two partitions", "tab:blue"),
             ("reflection_alpha1.csv", "fully absorbing wall (alpha 1.0)", "tab:red")]
    have = [(os.path.join(folder, f), label, c) for f, label, c in cases
            if os.path.exists(os.path.join(folder, f))]
    if not have:
        print("skip reflection (no CSV)")
        return
    fig, ax = plt.subplots(figsize=(9, 5))
    for path, label, color in have:
        d = read_csv(path)
        ax.plot(d["f_hz"], d["r_db"], color=color, lw=0.8, alpha=0.6, label=label + " (per bin)")
        bands = os.path.join(folder, "bands_" + os.path.basename(path))
        if os.path.exists(bands):
            b = read_csv(bands)
            ax.plot(b["centre_hz"], b["r_db"], "o-", color=color, ms=4,
                    label=label + " (third octaves)")
    ax.axhline(-40, color="k", ls="--", lw=1, label="bar -40 dB")
    log_frequency_axis(ax)
    ax.set_xlabel("frequency (Hz)")
    ax.set_ylabel("reflected / incident (dB)")
    ax.set_title("Plane-wave reflection in a rigid duct, band 0.05-0.8 f_max")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    save(fig, out, "reflection")


def plot_absorption(folder, out):
    alphas = [0.1, 0.5, 0.9]
    colors = ["tab:blue", "tab:orange", "tab:green"]
    fig, ax = plt.subplots(figsize=(9, 5))
    drawn = False
    for alpha, color in zip(alphas, colors):
        path = os.path.join(folder, f"reflection_alpha{alpha:.1f}.csv")
        if not os.path.exists(path):
            continue
        drawn = True
        d = read_csv(path)
        r = [10 ** (v / 20) for v in d["r_db"]]
        want = math.sqrt(1 - alpha)
        ax.axhspan(want - 0.05, want + 0.05, color=color, alpha=0.12)
        ax.axhline(want, color=color, ls="--", lw=1)
        ax.plot(d["f_hz"], r, color=color, lw=1, label=f"alpha {alpha}: |R|, target {want:.3f}")
    if not drawn:
        plt.close(fig)
        print("skip absorption (no CSV)")
        return
    log_frequency_axis(ax)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("frequency (Hz)")
    ax.set_ylabel("|R| normal incidence")
    ax.set_title("Absorbing wall vs sqrt(1 - alpha) (shaded: bar ±0.05)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    save(fig, out, "absorption")


def plot_energy(folder, out):
    path = pick(folder, "energy")
    if not path:
        print("skip energy (no CSV)")
        return
    d = read_csv(path)
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.plot(d["step"], d["energy_ratio"], color="k", lw=0.6)
    ax.axhline(1.0, color="tab:red", ls="--", lw=1, label="initial")
    ax.set_ylim(0, 1.1)
    ax.set_xlabel("time step")
    ax.set_ylabel("sum p^2 / initial")
    ax.set_title(f"No source, random initial field: energy over {int(d['step'][-1])} steps"
                 f"  [{os.path.basename(path)}]")
    ax.legend()
    fig.tight_layout()
    save(fig, out, "energy")


def plot_convolution(folder, out):
    """Offline and partitioned convolution against the direct form: error re peak per case and
    over the output of one case each."""
    off, part = (os.path.join(folder, f) for f in
                 ("convolution_offline.csv", "convolution_partitioned.csv"))
    if not (os.path.exists(off) and os.path.exists(part)):
        print("skip convolution (no CSV)")
        return
    o, p = read_csv(off), read_csv(part)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1, 1.2]})
    labels = [f"{int(a)}x{int(b)}" for a, b in zip(o["signal_samples"], o["filter_samples"])]
    ax1.plot(range(len(labels)), o["error_db"], "o", color="tab:blue", ms=5,
             label="offline (signal x filter samples)")
    plabels = [f"B{int(b)} IR{int(n)}" + ("" if m > b else " uniform")
               for b, n, m in zip(p["block"], p["ir_samples"], p["max_partition"])]
    x0 = len(labels)
    ax1.plot(range(x0, x0 + len(plabels)), p["error_db"], "s", color="tab:orange", ms=5,
             label="partitioned (block, IR samples)")
    ax1.axhline(-120, color="k", ls="--", lw=1, label="bar -120 dB")
    ax1.set_xticks(range(x0 + len(plabels)))
    ax1.set_xticklabels(labels + plabels, rotation=90, fontsize=6)
    ax1.set_ylabel("max error re peak (dB)")
    ax1.set_ylim(-160, -100)
    worst = max(o["error_db"] + p["error_db"])
    ax1.set_title(f"every case, worst {worst:.1f} dB", fontsize=9)
    ax1.legend(fontsize=7, loc="upper right")
    for name, color, label in (("convolution_offline_trace.csv", "tab:blue",
                                "offline, 20 000 x 7 001"),
                               ("convolution_partitioned_trace.csv", "tab:orange",
                                "partitioned, block 128, IR 30 000")):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            d = read_csv(path)
            ax2.plot(d["sample"], d["error_db"], color=color, lw=0.8, label=label)
    ax2.axhline(-120, color="k", ls="--", lw=1)
    ax2.set_ylim(-180, -100)
    ax2.set_xlabel("output sample")
    ax2.set_ylabel("error re peak (dB), max per chunk")
    ax2.set_title("error over the output", fontsize=9)
    ax2.legend(fontsize=7, loc="lower right")
    fig.suptitle("Convolution (float32) vs double-precision direct form", fontsize=10)
    fig.tight_layout()
    save(fig, out, "convolution", dpi=90, palette=True)


def plot_analysis(folder, out):
    """ISO 3382-1 analysis: decay-time errors vs noise floor per band, and the energy parameters
    against closed forms (no noise) and against the noise-free decay."""
    noise = os.path.join(folder, "analysis_noise.csv")
    single = os.path.join(folder, "analysis_single_slope.csv")
    if not (os.path.exists(noise) and os.path.exists(single)):
        print("skip analysis (no CSV)")
        return
    n, s1 = read_csv(noise), read_csv(single)
    bands = sorted(set(n["band_hz"]))
    levels = sorted(set(n["noise_db"]))
    cmap = plt.get_cmap("viridis")
    fig, axes = plt.subplots(2, 3, figsize=(11, 6))
    for col, (key, name) in enumerate((("edt", "EDT"), ("t20", "T20"), ("t30", "T30"))):
        ax_mean, ax_worst = axes[0][col], axes[1][col]
        for i, b in enumerate(bands):
            rows = [k for k in range(len(n["band_hz"])) if n["band_hz"][k] == b]
            rows.sort(key=lambda k: n["noise_db"][k])
            x = [n["noise_db"][k] for k in rows]
            rel = [True if key == "edt" else n[key + "_reliable"][k] > 0.5 for k in rows]
            color = cmap(i / max(1, len(bands) - 1))
            label = f"{b:g} Hz" if b < 1000 else f"{b / 1000:g} kHz"
            for ax, stat in ((ax_mean, "_mean_pct"), (ax_worst, "_worst_pct")):
                y = [n[key + stat][k] for k in rows]
                ax.plot(x, y, "-", color=color, lw=0.8, label=label)
                ax.plot([a for a, r in zip(x, rel) if r], [v for v, r in zip(y, rel) if r], "o",
                        color=color, ms=3)
                ax.plot([a for a, r in zip(x, rel) if not r],
                        [v for v, r in zip(y, rel) if not r], "x", color=color, ms=5)
        ax_mean.axhspan(-1, 1, color="tab:green", alpha=0.12)
        ax_worst.axhline(1, color="tab:green", ls="--", lw=1)
        ax_mean.set_title(f"{name}: mean error of 8 noise realisations", fontsize=9)
        ax_worst.set_title(f"{name}: worst realisation", fontsize=9)
        ax_mean.set_ylim(-2, 2)
        ax_worst.set_yscale("log")
        ax_worst.set_ylim(0.005, 20)
        ax_worst.set_xlabel("noise floor (dB re decay start)")
        ax_mean.set_xticks(levels)
        ax_worst.set_xticks(levels)
    axes[0][0].set_ylabel("error (%)")
    axes[1][0].set_ylabel("|error| (%)")
    axes[0][2].legend(fontsize=6, ncol=2, loc="upper left")
    fig.suptitle("ISO 3382-1 decay times vs noise floor, T = 1 s, octave bands (x: unreliable by "
                 "ISO's dynamic range; shaded / dashed: bar 1 %)", fontsize=9)
    fig.tight_layout()
    save(fig, out, "analysis-decay", dpi=90, palette=True)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.4))
    for i, b in enumerate(bands):
        rows = sorted((k for k in range(len(n["band_hz"])) if n["band_hz"][k] == b),
                      key=lambda k: n["noise_db"][k])
        color = cmap(i / max(1, len(bands) - 1))
        label = f"{b:g} Hz" if b < 1000 else f"{b / 1000:g} kHz"
        ax1.plot([n["noise_db"][k] for k in rows], [n["c80_worst_db"][k] for k in rows], "o-",
                 color=color, ms=3, lw=0.8, label=label)
        ax2.plot([n["noise_db"][k] for k in rows],
                 [n["d50_worst_pct_points"][k] for k in rows], "o-", color=color, ms=3, lw=0.8)
    c80_exact = max(abs(v) for v in s1["c80_err_db"])
    d50_exact = max(abs(v) for v in s1["d50_err_pct_points"])
    ax1.axhline(0.1, color="tab:green", ls="--", lw=1, label="bar 0.1 dB")
    ax2.axhline(0.5, color="tab:green", ls="--", lw=1, label="bar 0.5 %")
    ax1.set_title(f"C80: worst |noisy - noise-free|; no noise vs closed form: "
                  f"{c80_exact:.3f} dB", fontsize=8)
    ax2.set_title(f"D50: worst |noisy - noise-free|; no noise vs closed form: "
                  f"{d50_exact:.3f} %", fontsize=8)
    ax1.set_ylabel("dB")
    ax2.set_ylabel("percentage points")
    for ax in (ax1, ax2):
        ax.set_yscale("log")
        ax.set_xlabel("noise floor (dB re decay start)")
        ax.set_xticks(levels)
    ax1.legend(fontsize=6, ncol=2)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    save(fig, out, "analysis-energy", dpi=90, palette=True)


def plot_rigid_boxes(folder, out):
    """Random rigid boxes (tests/test_rigid_boxes_long.cpp): each seed's error with smooth and with
    power-of-two partition sides, and the worst seed's error over time."""
    table = os.path.join(folder, "rigid_boxes_ard.csv")
    worst = os.path.join(folder, "rigid_boxes_ard_worst_seed.csv")
    if not (os.path.exists(table) and os.path.exists(worst)):
        print("skip rigid boxes (no CSV)")
        return
    d, w = read_csv(table), read_csv(worst)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.6))
    x = list(range(len(d["seed"])))
    for key, off, color, label in (("error_05", -0.2, "tab:blue", "smooth sides (default)"),
                                   ("pow2_error_05", 0.2, "tab:gray", "power-of-two sides")):
        ax1.bar([i + off for i in x], [100 * v for v in d[key]], width=0.4, color=color,
                label=label)
    ax1.axhline(15, color="tab:red", ls="--", lw=1, label="bar (several partitions)")
    ax1.set_xticks(x)
    ax1.set_xticklabels([f"{s:g}" for s in d["seed"]], fontsize=7)
    ax1.set_xlabel("seed")
    ax1.set_ylabel("relative L2 error over 0.5 s (%)")
    ax1.set_title("ARD vs image sources, 20 random rigid boxes", fontsize=9)
    ax1.legend(fontsize=7)
    ax2.plot(w["time_s"], [100 * v for v in w["error"]], "-o", ms=3, label="smooth sides")
    ax2.plot(w["time_s"], [100 * v for v in w["error_power_of_two_sides"]], "-s", ms=3,
             color="tab:gray", label="power-of-two sides")
    ax2.axhline(15, color="tab:red", ls="--", lw=1)
    ax2.set_xlabel("window (s)")
    ax2.set_ylabel("relative L2 error (%)")
    ax2.set_title("the worst seed's error over growing windows", fontsize=9)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    save(fig, out, "rigid-boxes", dpi=90, palette=True)


def plot_bras_cr2(folder, out):
    """The measured BRAS CR2 room (tests/test_bras_cr2*.cpp): simulated / measured T20 and EDT per
    octave, one line per run the folder holds (bras_cr2_<solver>_<device>_<max_frequency>.csv)."""
    import glob
    runs = sorted(glob.glob(os.path.join(folder, "bras_cr2_*.csv")))
    if not runs:
        print("skip BRAS CR2 (no CSV)")
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    markers = "osD^v<>"
    for i, path in enumerate(runs):
        d = read_csv(path)
        solver, device, f_max = os.path.basename(path)[len("bras_cr2_"):-4].split("_")
        label = f"{solver.upper()} {device.upper() if device != 'cpu' else 'CPU'}, {f_max} Hz"
        for ax, sim, meas in ((axes[0], "t20_s", "t20_measured_s"),
                              (axes[1], "edt_s", "edt_measured_s")):
            ax.plot(d["octave_hz"], [a / b for a, b in zip(d[sim], d[meas])],
                    "-" + markers[i % len(markers)], ms=4, label=label)
    for ax, name in zip(axes, ("T20", "EDT")):
        ax.axhspan(0.9, 1.1, color="tab:green", alpha=0.12, label="within 10 %")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.axvspan(100, 215, color="tab:gray", alpha=0.12, label="below Schroeder (not judged)")
        log_frequency_axis(ax, 100, 1500)
        ax.set_xlim(100, 1500)
        ax.set_xlabel("octave (Hz)")
        ax.set_title(f"BRAS CR2, LS01 to MP01-MP05: {name} simulated / measured", fontsize=9)
    axes[0].set_ylabel("simulated / measured")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    save(fig, out, "bras-cr2", dpi=90, palette=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="folder the tests wrote their CSVs into (ARDENT_VALIDATION_OUT)")
    ap.add_argument("-o", "--out", default=os.path.join(os.path.dirname(__file__), "..", "docs",
                                                        "images"))
    args = ap.parse_args()
    if not os.path.isdir(args.folder):
        sys.exit(f"plot_validation: no folder {args.folder}")
    os.makedirs(args.out, exist_ok=True)
    plot_box(args.folder, args.out, "box_pow2", "Rigid box, one partition, vs image sources", 5)
    plot_box(args.folder, args.out, "box_npow2",
             "Rigid box, several partitions, vs image sources", 10)
    plot_rigid_boxes(args.folder, args.out)
    plot_bras_cr2(args.folder, args.out)
    plot_modes(args.folder, args.out, "modes_box", "Room modes, rigid box (several partitions)")
    plot_modes(args.folder, args.out, "modes_duct", "Axial modes, rigid duct (two partitions)")
    plot_reflection(args.folder, args.out)
    plot_absorption(args.folder, args.out)
    plot_energy(args.folder, args.out)
    plot_convolution(args.folder, args.out)
    plot_analysis(args.folder, args.out)


if __name__ == "__main__":
    main()
