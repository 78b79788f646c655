"""analyze, auralize, read_audio and write_audio against `ardent analyze` and `ardent auralize`."""
import json
import re

import numpy as np
import pytest

import ardent
from conftest import run_cli

SEED = 2471


def decaying_noise(fs=48000, seconds=1.2, t60=0.7, seed=SEED):
    rng = np.random.default_rng(seed)
    t = np.arange(int(fs * seconds)) / fs
    ir = rng.standard_normal(t.size) * 10 ** (-3 * t / t60)
    ir[:240] = 0  # the direct sound 5 ms in
    ir[240] = 4.0
    return ir.astype(np.float32)


@pytest.mark.parametrize("third", [False, True])
def test_analyze_equals_the_command(tmp_path, third):
    print("seed", SEED)
    ir = decaying_noise()
    f = tmp_path / "ir.wav"
    ardent.write_audio(f, ir, 48000)
    theirs = json.loads(run_cli("analyze", f, "--json", "--bands",
                                "third" if third else "octave").stdout)
    mine = ardent.analyze(ir, 48000, third_octave=third)
    # The command wraps the analysis with the file's name and channel.
    analysis = theirs.get("analysis", theirs)
    for k in ("sample_rate", "band_type", "onset_s", "bands"):
        assert mine[k] == analysis[k], k
    if not third:  # the noise's octaves decay at its T60 (thirds scatter more)
        t20 = [b["t20_s"] for b in mine["bands"] if 500 <= b["centre_hz"] <= 4000]
        assert all(abs(t - 0.7) < 0.07 for t in t20), t20


def test_analyze_keeps_decay_curves_and_limits():
    ir = decaying_noise()
    a = ardent.analyze(ir, 48000, max_frequency=3000, onset=0.005, decay_curves=True)
    assert a["onset_s"] == pytest.approx(0.005) and a["onset_from"] == "given"
    assert max(b["centre_hz"] for b in a["bands"]) == 2000  # its band ends at 2.83 kHz
    for b in a["bands"]:
        curve = b["decay_db"]
        assert curve.dtype == np.float32 and curve[0] == pytest.approx(0, abs=0.5)
        assert b["decay_rate_hz"] > 0
    with pytest.raises(ardent.InputError, match="silent"):
        ardent.analyze(np.zeros(4800, np.float32), 48000)
    with pytest.raises(ardent.InputError, match="one channel"):
        ardent.analyze(np.zeros((4800, 2), np.float32), 48000)


def test_auralize_equals_the_command(tmp_path, cli_run):
    _, out = cli_run
    rng = np.random.default_rng(SEED + 1)
    dry = (0.1 * rng.standard_normal(24000)).astype(np.float32)
    dry_file = tmp_path / "dry.wav"
    ardent.write_audio(dry_file, dry, 48000)
    result = ardent.Result.load(out)
    # Mono, in the IR's units.
    run_cli("auralize", dry_file, out / "ir" / "S1_R1.wav", "-o", tmp_path / "wet.wav",
            "--normalize", "none", "--no-fft-cache")
    theirs, _ = ardent.read_audio(tmp_path / "wet.wav")
    mine = ardent.auralize(dry, result.ir("S1", "R1"), 48000)
    assert mine.shape == theirs.shape == (dry.size + result.ir("S1", "R1").size - 1,)
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-6 * np.abs(theirs).max())
    # Binaural from the third-order AmbiX IR, facing along -y.
    run_cli("auralize", dry_file, out / "ambix" / "S1_R2.wav", "-o", tmp_path / "ears.wav",
            "--binaural", "--facing=0,-1,0", "--normalize", "loudness", "--no-fft-cache")
    theirs, _ = ardent.read_audio(tmp_path / "ears.wav")
    mine = ardent.auralize(dry, result.ambix("S1", "R2"), 48000, binaural=True,
                           facing=(0, -1, 0), normalize="loudness")
    assert mine.shape == theirs.shape and mine.shape[1] == 2
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-5 * np.abs(theirs).max())


def test_auralize_refuses_what_it_cannot_render():
    dry = np.ones(100, np.float32)
    with pytest.raises(ardent.InputError, match="needs directions.*2 channel"):
        ardent.auralize(dry, np.ones((10, 2), np.float32), 48000, binaural=True)
    with pytest.raises(ardent.InputError, match="normalize"):
        ardent.auralize(dry, np.ones(10, np.float32), 48000, normalize="loud")
    with pytest.raises(ardent.InputError, match="sample rate"):
        ardent.auralize(dry, np.ones(10, np.float32), 100)
    with pytest.raises(ardent.InputError, match="not finite|finite"):
        ardent.auralize(np.full(10, np.nan, np.float32), np.ones(10, np.float32), 48000)


def test_write_audio_keeps_an_existing_file(tmp_path):
    f = tmp_path / "take.wav"
    f.write_bytes(b"mine")
    with pytest.raises(ardent.InputError, match="already exists"):
        ardent.write_audio(f, np.zeros(10, np.float32), 48000)
    assert f.read_bytes() == b"mine"
    x = np.linspace(-1, 1, 480, dtype=np.float32).reshape(240, 2)
    ardent.write_audio(f, x, 48000, overwrite=True)
    back, fs = ardent.read_audio(f)
    assert fs == 48000 and np.array_equal(back, x)
    with pytest.raises(ardent.InputError, match=re.escape(".mp3")):
        ardent.write_audio(tmp_path / "x.mp3", x, 48000)
