"""The example of docs/python.md runs as printed there."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import ardent
from conftest import DATA

EXAMPLES = Path(os.environ.get("ARDENT_EXAMPLES", Path(__file__).resolve().parents[1] / "examples"))
DOCS = Path(os.environ.get("ARDENT_DOCS", Path(__file__).resolve().parents[2] / "docs"))


def test_the_documented_example_is_the_one_tested():
    script = (EXAMPLES / "first_room.py").read_text()
    doc = (DOCS / "python.md").read_text()
    assert script in doc, "docs/python.md must hold python/examples/first_room.py verbatim"


def test_the_example_runs(tmp_path):
    r = subprocess.run([sys.executable, str(EXAMPLES / "first_room.py"), str(DATA),
                        str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if "T20" in l]
    assert len(lines) == 8 and "1000 Hz  T20 0." in r.stdout
    assert (tmp_path / "ir-and-decays.png").stat().st_size > 10000
    ears, fs = ardent.read_audio(tmp_path / "singing-binaural.wav")
    assert fs == 48000 and ears.shape[1] == 2 and np.abs(ears).max() > 0.01
