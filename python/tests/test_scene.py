"""Scenes from Python: loaded, edited, saved and checked by the command line's own code."""
import json
import math
import subprocess
import sys

import pytest

import ardent
from conftest import DATA, run_cli


def test_the_module_imports_and_answers_without_a_gpu(shoebox_path):
    # CUDA_VISIBLE_DEVICES hides any GPU: the module must not need one to import or to estimate.
    code = ("import ardent; s = ardent.Scene.load(%r); i = ardent.info(s); "
            "print(i['air_cells'] > 0)" % str(shoebox_path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**__import__("os").environ, "CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"


def test_info_is_the_commands_json(shoebox_path):
    mine = ardent.info(ardent.Scene.load(shoebox_path))
    theirs = json.loads(run_cli("info", shoebox_path, "--json").stdout)
    assert mine.pop("timings_s").keys() == theirs.pop("timings_s").keys()  # measured, not equal
    assert mine == theirs


def test_edits_save_and_load_back(tmp_path, shoebox_path):
    s = ardent.Scene.load(shoebox_path)
    s.sources[0].position = (2.0, 1.5, 1.2)
    s.add_receiver("R9", [4.5, 2.5, 1.6])
    s.remove_receiver("R2")
    s.material("hard_surface").absorption = 0.07
    s.material("hard_surface").scattering = {125: 0.1, 4000: 0.6}
    s.materials.append(ardent.Material("felt", {500: 0.3, 1000: 0.5}))
    s.simulation.max_frequency = 400
    s.air.temperature_c = 25
    f = tmp_path / "edited.json"
    s.save(f)
    back = ardent.Scene.load(f)
    assert back == s
    assert [r.name for r in back.receivers] == ["R1", "R9"]
    assert back.receiver("R9").position == (4.5, 2.5, 1.6)
    assert back.material("hard_surface").absorption == pytest.approx(0.07)
    assert back.material("hard_surface").scattering == {125.0: 0.1, 4000.0: 0.6}
    assert back.material("felt").absorption_at(707.1) == pytest.approx(0.4, abs=1e-3)
    # The file is the command line's to read as well.
    run_cli("info", f)
    # A dict with a scene file's keys gives the same scene.
    assert ardent.Scene.from_dict(back.to_dict()) == back


def test_save_never_overwrites_unless_asked(tmp_path, shoebox_path):
    s = ardent.Scene.load(shoebox_path)
    f = tmp_path / "mine.json"
    f.write_text("precious")
    with pytest.raises(ardent.InputError, match="already exists; pass overwrite=True"):
        s.save(f)
    assert f.read_text() == "precious"
    s.save(f, overwrite=True)
    assert ardent.Scene.load(f) == s


@pytest.mark.parametrize(
    "edit, key, message",
    [
        (lambda s: setattr(s.simulation, "max_frequency", -5), "simulation.max_frequency",
         "expected a positive number"),
        (lambda s: setattr(s.simulation, "solver", "raytrace"), "simulation.solver", "ard"),
        (lambda s: setattr(s.material("hard_surface"), "absorption", 1.5),
         "materials.hard_surface", "absorption"),
        (lambda s: setattr(s, "output_sample_rate", 100), "output.sample_rate", "8000"),
    ],
)
def test_a_bad_value_is_named_by_its_key(edit, key, message, shoebox_path):
    s = ardent.Scene.load(shoebox_path)
    edit(s)
    with pytest.raises(ardent.SceneError) as e:
        s.validate()
    assert e.value.key.startswith(key), e.value.key
    assert message in str(e.value)
    assert e.value.file == str(shoebox_path)
    assert isinstance(e.value, ValueError)


def test_from_dict_refuses_an_unknown_key_naming_it(shoebox_path):
    d = ardent.Scene.load(shoebox_path).to_dict()
    d["simulation"]["max_frequncy"] = 500
    with pytest.raises(ardent.SceneError, match='did you mean "max_frequency"') as e:
        ardent.Scene.from_dict(d)
    assert e.value.key == "simulation.max_frequncy"


def test_positions_must_be_three_finite_numbers(shoebox_path):
    s = ardent.Scene.load(shoebox_path)
    with pytest.raises(ValueError, match="three numbers"):
        s.sources[0].position = (1, 2)
    with pytest.raises(ValueError, match="finite"):
        s.add_source("S2", (1, math.nan, 1))
    with pytest.raises(KeyError, match="no source named"):
        s.source("nobody")
    assert len(s.sources) == 1


def test_a_bundled_mesh_scene_loads_from_a_dict_with_a_base_dir():
    path = DATA / "scenes" / "lshape.json"
    text = json.loads(path.read_text())
    s = ardent.Scene.from_dict(text, base_dir=path.parent)
    assert s == ardent.Scene.load(path)
    assert s.file is None
