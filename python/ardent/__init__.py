"""Ardent: room-acoustics simulation and auralization from Python (docs/python.md).

A thin front end over the same libraries as the `ardent` command: scenes are read, checked and
written by the command's own code, `simulate` runs the same pipeline into the same results
directory, and `Result` reads what any run wrote. Arrays are NumPy; audio is frames first.

    import ardent
    scene = ardent.Scene.load("data/scenes/shoebox.json")
    result = ardent.simulate(scene, "shoebox.ardent")
    ir = result.ir("S1", "R1")           # float32, result.sample_rate Hz
    print(result.acoustics("S1", "R1"))  # ISO 3382-1 per octave band
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from ._ardent import (  # noqa: F401  (re-exported)
    Air,
    Emitter,
    EmitterList,
    Error,
    GeometricSettings,
    Grid,
    InputError,
    Material,
    MaterialList,
    SceneEmitter,
    SceneMaterial,
    ResourceError,
    Scene,
    SceneError,
    SimulationSettings,
    SolverError,
    analyze,
    default_hrtf,
    info,
    read_audio,
    write_audio,
)
from . import _ardent

__all__ = [
    "Air", "Emitter", "EmitterList", "Error", "GeometricSettings", "Grid", "InputError", "Material",
    "MaterialList", "Progress", "ResourceError", "Result", "Scene", "SceneEmitter", "SceneError",
    "SceneMaterial", "SimulationSettings", "SolverError",
    "ArdentWarning", "analyze", "auralize", "default_hrtf", "info", "read_audio", "simulate",
    "write_audio",
]

PathLike = Union[str, "os.PathLike[str]"]


def _input_error(message: str, file: PathLike) -> InputError:
    e = InputError(message)
    e.file = os.fspath(file)
    return e


class ArdentWarning(UserWarning):
    """Something a run reports that does not stop it (e.g. litter of an earlier, killed run)."""


@dataclass(frozen=True)
class Progress:
    """One report of a running simulate().

    phase: "stage" (text in `name`), "solve" (time steps), "rays" (the geometric engine's rays)
    or "write" (IRs written); `name` is the source for the last three; `done` of `total` units
    (done == total at the phase's end).
    """

    phase: str
    name: str
    done: int
    total: int


class _TqdmBars:
    """Progress as tqdm bars, one per source and phase (when tqdm is importable)."""

    def __init__(self, tqdm: Any) -> None:
        self._tqdm = tqdm
        self._bar: Any = None
        self._key: Optional[tuple] = None

    def __call__(self, p: Progress) -> None:
        if p.phase == "stage":
            self._tqdm.write(p.name)
            return
        key = (p.phase, p.name)
        if key != self._key:
            self.close()
            unit = {"solve": "steps", "rays": "rays", "write": "IRs"}.get(p.phase, "")
            self._bar = self._tqdm(total=p.total, desc=f"{p.name} {p.phase}", unit=unit,
                                   leave=False)
            self._key = key
        self._bar.n = p.done
        self._bar.refresh()
        if p.done >= p.total:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar = None
        self._key = None


def _reporter(progress: Union[bool, None, Callable[[Progress], Any]]):
    """The callable handed to the compiled run, and a closer for a tqdm bar."""
    callback: Optional[Callable[[Progress], Any]] = None
    bars: Optional[_TqdmBars] = None
    if callable(progress):
        callback = progress
    elif progress:
        try:
            from tqdm.auto import tqdm  # type: ignore
        except ImportError:
            tqdm = None
        if tqdm is not None:
            bars = _TqdmBars(tqdm)
            callback = bars

    def report(kind: str, name: str, done: int, total: int) -> None:
        if kind == "warning":
            warnings.warn(name, ArdentWarning, stacklevel=3)
            return
        if callback is not None:
            callback(Progress(kind, name, done, total))

    return report, (bars.close if bars else (lambda: None))


def simulate(
    scene: Scene,
    out_dir: Optional[PathLike] = None,
    *,
    device: Optional[str] = None,
    solver: Optional[str] = None,
    max_frequency: Optional[float] = None,
    duration: Optional[float] = None,
    band: Optional[str] = None,
    precision: str = "float32",
    threads: int = 0,
    force: bool = False,
    checkpoint_every: int = 0,
    resume: bool = False,
    progress: Union[bool, None, Callable[[Progress], Any]] = True,
) -> "Result":
    """Simulates `scene` as `ardent simulate` does and returns its Result.

    out_dir: the results directory, written only when complete (None: a temporary one, removed
    when the Result is garbage-collected). The keyword arguments override the scene's simulation
    settings as the command's options do (the scene itself is not changed). force replaces an
    existing results directory of Ardent's once the new one is complete. progress: True shows a
    tqdm bar when tqdm is importable; a callable receives a Progress a few times a second; False
    or None: nothing. Ctrl-C stops the run (KeyboardInterrupt) and leaves nothing behind; the GIL
    is released while it runs. Raises SceneError / InputError, ResourceError, SolverError.
    """
    run = scene.copy()
    s = run.simulation
    if device is not None:
        s.device = device
    if solver is not None:
        s.solver = solver
    if max_frequency is not None:
        s.max_frequency = float(max_frequency)
    if duration is not None:
        s.duration = float(duration)
    if band is not None:
        s.band = band
    temporary: Optional[str] = None
    if out_dir is None:
        temporary = tempfile.mkdtemp(prefix="ardent-")
        target = Path(temporary) / "results"
    else:
        target = Path(out_dir)
    report, close = _reporter(progress)
    try:
        out = _ardent._simulate(run, target, force, resume, precision, int(threads),
                                int(checkpoint_every), report)
    except BaseException:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
        raise
    finally:
        close()
    result = Result.load(out["directory"])
    result.seconds = out["seconds"]
    if temporary:
        result._cleanup = weakref.finalize(result, shutil.rmtree, temporary, True)
    return result


class Result:
    """A results directory of `ardent simulate` (docs/output-format.md), read on demand.

    metadata: result.json as a dict; sample_rate: Hz of the IR files; sources, receivers:
    names; timings: seconds per stage; band: "full" or "wave".
    """

    def __init__(self, directory: PathLike, metadata: dict) -> None:
        self.directory = Path(directory)
        self.metadata = metadata
        self.seconds: Optional[float] = None
        self._grids: dict = {}
        self._cleanup: Any = None

    @classmethod
    def load(cls, directory: PathLike) -> "Result":
        """Reads a results directory that the command line (or simulate) wrote."""
        d = Path(directory)
        f = d / "result.json"
        if not f.is_file():
            raise _input_error(f"'{d}' is not a results directory of ardent simulate "
                               f"(no result.json)", d)
        try:
            meta = json.loads(f.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise _input_error(f"'{f}': is not a result.json ({e})", f) from None
        if not isinstance(meta, dict) or meta.get("format") != "ardent-result/1":
            raise _input_error(f"'{f}': format is not ardent-result/1", f)
        return cls(d, meta)

    def __repr__(self) -> str:
        return (f"<ardent.Result {str(self.directory)!r}: sources {self.sources}, receivers "
                f"{self.receivers}, {self.band} band>")

    @property
    def sample_rate(self) -> int:
        return int(self.metadata["ir"]["sample_rate"])

    @property
    def sources(self) -> list:
        return [s["name"] for s in self.metadata.get("sources", [])]

    @property
    def receivers(self) -> list:
        return [r["name"] for r in self.metadata.get("receivers", [])]

    @property
    def timings(self) -> dict:
        return dict(self.metadata.get("timings_s", {}))

    @property
    def band(self) -> str:
        b = self.metadata.get("band")
        return b.get("mode", "full") if isinstance(b, dict) else "wave"

    def _file(self, folder: str, source: str, receiver: str) -> Path:
        if source not in self.sources:
            raise KeyError(f"no source named {source!r} (sources: {self.sources})")
        if receiver not in self.receivers:
            raise KeyError(f"no receiver named {receiver!r} (receivers: {self.receivers})")
        name = f"{_ardent._safe_name(source)}_{_ardent._safe_name(receiver)}.wav"
        rel = f"{folder}/{name}"
        listed = self.metadata.get("files", {}).get(folder, [])
        if rel not in listed:
            raise KeyError(f"this run wrote no {rel}")
        return self.directory / rel

    def ir(self, source: str, receiver: str) -> np.ndarray:
        """The pressure IR of a source-receiver pair, float32 at sample_rate (the IR convention:
        a free-field direct sound sums to 1/(4 pi r))."""
        samples, _ = read_audio(self._file("ir", source, receiver))
        return samples

    def ambix(self, source: str, receiver: str) -> np.ndarray:
        """The pair's AmbiX IR (ACN, SN3D, the model's axes), (frames, channels): 16 channels in
        a full-band run, 4 in a wave-band one. auralize(..., binaural=True) renders it."""
        samples, _ = read_audio(self._file("ambix", source, receiver))
        return samples

    def acoustics(self, source: str, receiver: str) -> Optional[dict]:
        """The pair's ISO 3382-1 octave-band table from result.json (keys in docs/analysis.md);
        None when the run could not analyse its IR."""
        for a in self.metadata.get("acoustics", []):
            if a.get("source") == source and a.get("receiver") == receiver:
                return a.get("iso3382")
        raise KeyError(f"no pair {source!r}, {receiver!r} in this result")

    def grid(self, source: str) -> Grid:
        """The listener grid of a source (positions at once, IRs when read)."""
        if source not in self.sources:
            raise KeyError(f"no source named {source!r} (sources: {self.sources})")
        rel = f"grid/{_ardent._safe_name(source)}.h5"
        if rel not in self.metadata.get("files", {}).get("grid", []):
            raise KeyError("this run has no listener grid (the scene's listener_grid)")
        if source not in self._grids:
            self._grids[source] = Grid(self.directory / rel)
        return self._grids[source]


def auralize(
    dry: np.ndarray,
    ir: np.ndarray,
    fs: float,
    *,
    ir_fs: Optional[float] = None,
    binaural: bool = False,
    hrtf: Optional[PathLike] = None,
    facing: Sequence[float] = (1.0, 0.0, 0.0),
    up: Sequence[float] = (0.0, 0.0, 1.0),
    normalize: str = "none",
    threads: int = 0,
) -> np.ndarray:
    """The dry signal heard through an IR, as `ardent auralize` renders it; float32, frames first.

    dry: (frames,) or (frames, channels) at fs Hz. ir: (frames,) or (frames, channels) at ir_fs
    (default fs; resampled to fs). Channels pair as the command pairs them (mono dry through every
    IR channel, or channel by channel). binaural=True (or an hrtf SOFA file): ir is an AmbiX IR of
    4, 9 or 16 channels (Result.ambix) decoded for a listener facing `facing` with `up` up; the
    output is (frames, 2). normalize: "none" (the IR's units), "peak" (-1 dBFS) or "loudness"
    (-23 LUFS, peak at most -1 dBFS).
    """
    return _ardent._auralize(dry, ir, float(fs), None if ir_fs is None else float(ir_fs),
                             bool(binaural), None if hrtf is None else os.fspath(hrtf), facing,
                             up, normalize, int(threads))
