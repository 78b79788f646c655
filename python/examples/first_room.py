"""A first room from Python: simulate a bundled scene, plot its IR and decays, print T20, listen.

Run from the repository (or pass the data folder and an output folder):
    PYTHONPATH=build/python python3 python/examples/first_room.py [DATA_DIR] [OUT_DIR]
"""
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files, no window; drop this line in a notebook
import matplotlib.pyplot as plt
import numpy as np

import ardent

data = Path(sys.argv[1] if len(sys.argv) > 1 else "data")
out = Path(sys.argv[2] if len(sys.argv) > 2 else "out/python-example")
out.mkdir(parents=True, exist_ok=True)

# The bundled shoebox, at a low max_frequency so that it runs in seconds on two cores: the wave
# solver below 150 Hz, geometric acoustics above (full band).
scene = ardent.Scene.load(data / "scenes" / "shoebox.json")
scene.simulation.max_frequency = 250
scene.simulation.duration = 0.8
result = ardent.simulate(scene, out / "shoebox.ardent", force=True)

ir, fs = result.ir("S1", "R1"), result.sample_rate
analysis = ardent.analyze(ir, fs, onset=result.acoustics("S1", "R1")["onset_s"],
                          decay_curves=True)
for band in analysis["bands"]:
    t20 = band["t20_s"]
    print(f"{band['centre_hz']:>6.0f} Hz  T20 " + ("-" if t20 is None else f"{t20:.2f} s"))

fig, (a, b) = plt.subplots(2, 1, figsize=(8, 6), constrained_layout=True)
a.plot(np.arange(len(ir)) / fs, ir, linewidth=0.5)
a.set(xlabel="time (s)", ylabel="pressure (IR convention)", title="S1 to R1")
for band in analysis["bands"]:
    curve = band["decay_db"]
    if len(curve):
        b.plot(np.arange(len(curve)) / band["decay_rate_hz"], curve,
               label=f"{band['centre_hz']:.0f} Hz")
b.set(xlabel="time after the direct sound (s)", ylabel="decay (dB)", ylim=(-60, 2))
b.legend(ncol=4, fontsize="small")
fig.savefig(out / "ir-and-decays.png", dpi=100)

# The bundled singer at R1, binaurally, facing the source.
dry, dry_fs = ardent.read_audio(data / "audio" / "openair-singing-anechoic-48k.wav")
facing = np.subtract(scene.source("S1").position, scene.receiver("R1").position)
facing[2] = 0
ears = ardent.auralize(dry, result.ambix("S1", "R1"), dry_fs, ir_fs=fs, binaural=True,
                       facing=facing, normalize="loudness")
ardent.write_audio(out / "singing-binaural.wav", ears, dry_fs, overwrite=True)
print(f"wrote {out / 'ir-and-decays.png'} and {out / 'singing-binaural.wav'}")
