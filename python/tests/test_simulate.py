"""simulate() and Result against the command line's own run of the same scene."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import ardent
from conftest import SMALL


def wavs(directory: Path):
    return sorted(p.relative_to(directory) for p in directory.rglob("*.wav"))


def test_simulate_equals_the_commands_files_bit_for_bit(tmp_path, cli_run):
    scene_file, cli_out = cli_run
    reports = []
    r = ardent.simulate(ardent.Scene.load(scene_file), tmp_path / "py.ardent", threads=2,
                        progress=reports.append, **SMALL)
    assert r.directory == tmp_path / "py.ardent"
    names = wavs(cli_out)
    assert names == wavs(r.directory) and len(names) == 4  # 2 receivers: ir/ and ambix/
    for n in names:
        mine, fs = ardent.read_audio(r.directory / n)
        theirs, fs2 = ardent.read_audio(cli_out / n)
        assert fs == fs2 == 48000
        assert mine.dtype == np.float32 and np.array_equal(mine, theirs), n
    g1, g2 = r.grid("S1"), ardent.Grid(cli_out / "grid" / "S1.h5")
    assert len(g1) == len(g2) > 10
    assert np.array_equal(g1.positions, g2.positions)
    assert np.array_equal(g1.irs(), g2.irs())
    # The progress reports: every phase of the run, each ending done == total.
    phases = {p.phase for p in reports}
    assert {"stage", "solve", "rays", "write"} <= phases
    solve = [p for p in reports if p.phase == "solve"]
    assert solve[-1].done == solve[-1].total == r.metadata["solver"]["steps"]


def test_result_reads_what_the_command_wrote(cli_run):
    _, out = cli_run
    r = ardent.Result.load(out)
    assert r.sources == ["S1"] and r.receivers == ["R1", "R2"]
    assert r.sample_rate == 48000 and r.band == "full"
    ir = r.ir("S1", "R1")
    assert ir.shape == (round(SMALL["duration"] * 48000),) and ir.dtype == np.float32
    assert r.ambix("S1", "R2").shape == (ir.shape[0], 16)
    table = r.acoustics("S1", "R1")
    assert {b["centre_hz"] for b in table["bands"]} >= {500, 1000, 2000, 4000}
    assert r.timings["total"] > 0
    g = r.grid("S1")
    assert g.positions.shape == (len(g), 3) and g.full_band
    assert g.irs().shape == (len(g), g.samples)
    # A point's full-band IR at the output rate: what `ardent auralize` hears there.
    full = g.full_band_ir(0)
    assert abs(full.size - SMALL["duration"] * g.output_sample_rate) < 0.002 * full.size
    assert g.nearest(g.positions[3]) == 3
    with pytest.raises(KeyError, match="no receiver named"):
        r.ir("S1", "R7")
    with pytest.raises(ardent.InputError, match="not a results directory"):
        ardent.Result.load(out / "ir")


def test_a_temporary_result_is_removed_with_it(shoebox_path):
    r = ardent.simulate(ardent.Scene.load(shoebox_path), progress=False, band="wave",
                        threads=2, **SMALL)
    parent = r.directory.parent
    assert (r.directory / "result.json").is_file()
    assert r.ir("S1", "R1").shape[0] == round(SMALL["duration"] * 48000)
    del r
    import gc

    gc.collect()
    assert not parent.exists()


def test_a_bad_scene_raises_and_writes_nothing(tmp_path, shoebox_path):
    s = ardent.Scene.load(shoebox_path)
    s.add_source("S9", (40.0, 1.0, 1.0))  # outside the 6 x 4 x 3 m box
    out = tmp_path / "never.ardent"
    with pytest.raises(ardent.SceneError, match='source "S9"') as e:
        ardent.simulate(s, out, progress=False, **SMALL)
    assert e.value.object == "S9" and e.value.key == "sources"
    assert list(tmp_path.iterdir()) == []
    s = ardent.Scene.load(shoebox_path)
    with pytest.raises(ardent.SceneError, match="simulation.duration") as e:
        ardent.simulate(s, out, duration=-1, progress=False)
    assert e.value.key == "simulation.duration"
    with pytest.raises(ardent.InputError, match="precision"):
        ardent.simulate(s, out, precision="float16", progress=False)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_is_kept_unless_forced(tmp_path, shoebox_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "precious.txt").write_text("mine")
    s = ardent.Scene.load(shoebox_path)
    with pytest.raises(ardent.InputError, match="exists"):
        ardent.simulate(s, out, progress=False, **SMALL)
    # --force replaces only a results directory Ardent wrote.
    with pytest.raises(ardent.InputError, match="replaces only a results directory"):
        ardent.simulate(s, out, force=True, progress=False, **SMALL)
    assert (out / "precious.txt").read_text() == "mine"
    ours = tmp_path / "ours"
    first = ardent.simulate(s, ours, progress=False, band="wave", **SMALL).ir("S1", "R1").size
    second = ardent.simulate(s, ours, force=True, progress=False, band="wave", duration=0.2,
                             max_frequency=SMALL["max_frequency"])
    assert second.ir("S1", "R1").size == round(0.2 * 48000) != first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "ours"]


def test_an_exception_in_the_progress_callback_stops_the_run(tmp_path, shoebox_path):
    def stop(p):
        if p.phase == "solve" and p.done > 0:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        ardent.simulate(ardent.Scene.load(shoebox_path), tmp_path / "x", progress=stop,
                        max_frequency=400, duration=2.0)
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_cancels_cleanly(tmp_path, shoebox_path):
    # A child process runs a long simulation and says when it is stepping; SIGINT then must end
    # it with KeyboardInterrupt, and nothing may remain in the output's folder.
    out = tmp_path / "out"
    out.mkdir()
    script = textwrap.dedent(f"""
        import sys, ardent
        def report(p):
            if p.phase == "solve" and p.done > 0:
                print("stepping", flush=True)
        try:
            ardent.simulate(ardent.Scene.load({str(shoebox_path)!r}), {str(out / 'run')!r},
                            progress=report, max_frequency=500, duration=20.0, band="wave")
        except KeyboardInterrupt as e:
            print("interrupted:", e, flush=True)
            sys.exit(7)
        print("finished", flush=True)
    """)
    with open(tmp_path / "stderr.txt", "w") as err:
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                 stderr=err, text=True, env=os.environ.copy())
        killer = threading.Timer(300, child.kill)  # a hang fails the test instead of CI
        killer.start()
        try:
            for line in child.stdout:
                if line.startswith("stepping"):
                    child.send_signal(signal.SIGINT)
                    break
            rest, _ = child.communicate(timeout=120)
        finally:
            killer.cancel()
            child.kill()
    assert child.returncode == 7, (rest, (tmp_path / "stderr.txt").read_text())
    assert "interrupted" in rest
    assert list(out.iterdir()) == []


def test_other_threads_run_while_it_steps_and_callbacks_may_read_a_grid(tmp_path, cli_run):
    # The GIL is released while the run steps: a Python thread counts meanwhile. The callback
    # reads a grid file (HDF5) while the run, which writes its own grid, holds HDF5's lock.
    scene_file, cli_out = cli_run
    grid = ardent.Grid(cli_out / "grid" / "S1.h5")
    ticks, reads = [], []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    def report(p):
        if p.phase == "write" and not reads:
            reads.append(grid.ir(0).size)

    t = threading.Thread(target=count)
    t.start()
    try:
        ardent.simulate(ardent.Scene.load(scene_file), tmp_path / "r", progress=report,
                        max_frequency=300, duration=1.0, threads=2)
    finally:
        stop.set()
        t.join()
    assert reads == [grid.samples]
    assert len(ticks) > 100, len(ticks)


def test_progress_true_draws_tqdm_bars_when_tqdm_is_there(tmp_path, shoebox_path, monkeypatch):
    # tqdm is not a dependency: a stand-in module records what the bars were told.
    import types

    bars, notes = [], []

    class Bar:
        def __init__(self, total, desc, unit, leave):
            self.total, self.desc, self.unit, self.n, self.closed = total, desc, unit, 0, False
            bars.append(self)

        def refresh(self):
            assert 0 <= self.n <= self.total

        def close(self):
            self.closed = True

    Bar.write = staticmethod(notes.append)
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = Bar
    monkeypatch.setitem(sys.modules, "tqdm", types.ModuleType("tqdm"))
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    ardent.simulate(ardent.Scene.load(shoebox_path), tmp_path / "r", threads=2, **SMALL)
    assert [b.unit for b in bars][:2] == ["steps", "rays"] and bars[-1].unit == "IRs"
    assert all(b.closed and b.n == b.total for b in bars)
    assert any(n.startswith("Preprocessing") for n in notes)
