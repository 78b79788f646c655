"""Shared fixtures: the `ardent` command, the bundled data, and small runs made once."""
import os
import subprocess
from pathlib import Path

import pytest

import ardent

DATA = Path(os.environ.get("ARDENT_DATA", Path(__file__).resolve().parents[2] / "data"))
CLI = os.environ.get("ARDENT_CLI", str(Path(__file__).resolve().parents[2] / "build/cli/ardent"))

# A small run of the bundled shoebox (full band: wave solver below 150 Hz, rays above), seconds
# on two cores.
SMALL = {"max_frequency": 250.0, "duration": 0.3}


def run_cli(*args, check=True):
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"ardent {' '.join(map(str, args))}: rc {r.returncode}\n{r.stderr}")
    return r


@pytest.fixture(scope="session")
def shoebox_path():
    return DATA / "scenes" / "shoebox.json"


@pytest.fixture(scope="session")
def cli_run(tmp_path_factory, shoebox_path):
    """The shoebox simulated by the command line (2 threads), with a listener grid."""
    d = tmp_path_factory.mktemp("cli")
    scene = ardent.Scene.load(shoebox_path)
    scene.listener_grid_spacing_m = 1.0
    scene_file = d / "shoebox-grid.json"
    scene.save(scene_file)
    out = d / "run.ardent"
    run_cli("simulate", scene_file, "-o", out, "--max-frequency", SMALL["max_frequency"],
            "--duration", SMALL["duration"], "--threads", 2, "--quiet")
    return scene_file, out
