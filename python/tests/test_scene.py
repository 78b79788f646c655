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
    with pytest.raises(ardent.InputError, match="already exists; choose another name or pass overwrite=True"):
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


def test_elements_held_across_edits_stay_safe(shoebox_path):
    # An element is a view found by name at each access: holding one while the list grows or
    # shrinks never points into moved memory.
    s = ardent.Scene.load(shoebox_path)
    r1 = s.receivers[0]
    for i in range(100):  # the vector reallocates several times
        s.add_receiver(f"X{i}", (1.0, 1.0, 1.0 + 0.01 * i))
    r1.position = (4.0, 2.0, 1.0)
    assert s.receiver("R1").position == (4.0, 2.0, 1.0)
    x5 = s.receivers["X5"]
    del s.receivers[0]  # R1 goes; X5 moves down one place
    assert x5.position == pytest.approx((1.0, 1.0, 1.05))
    with pytest.raises(KeyError, match='no receiver named "R1"'):
        r1.position
    assert "R1" not in s.receivers and "R2" in s.receivers
    assert len(s.receivers) == 101 and s.receivers.names()[:2] == ["R2", "X0"]
    wall = s.material("hard_surface")
    s.materials.append(ardent.Material("felt", 0.5))
    wall.absorption = 0.2
    assert s.materials["hard_surface"].absorption == 0.2
    s.materials = [m for m in s.materials if m.name != "felt"]
    assert s.materials.names() == ["carpet_tufted_9mm", "ceiling_plasterboard", "hard_surface"]
    s.sources = [ardent.Emitter("A", (1, 1, 1)), s.sources[0]]
    assert [e.value().name for e in s.sources] == ["A", "S1"]
    with pytest.raises(TypeError, match="expected an ardent.Emitter"):
        s.sources.append("S3")


def test_errors_raised_in_python_carry_the_same_attributes(tmp_path):
    with pytest.raises(ardent.InputError) as e:
        ardent.Result.load(tmp_path)
    assert e.value.file == str(tmp_path) and e.value.key is None and e.value.object is None
    with pytest.raises(ardent.InputError) as e:
        ardent.Scene.load(tmp_path / "missing.json")
    assert e.value.file == str(tmp_path / "missing.json") and "no such scene file" in str(e.value)
    assert type(e.value) is ardent.InputError  # no key: not a SceneError
    d = ardent.Scene.load(DATA / "scenes" / "shoebox.json").to_dict()
    d["simulation"]["duration"] = -2
    with pytest.raises(ardent.SceneError) as e:
        ardent.Scene.from_dict(d)
    assert e.value.file is None and e.value.key == "simulation.duration"
    assert ardent.Scene.load(DATA / "scenes" / "shoebox.json") != None  # noqa: E711


def test_names_stay_unique_and_a_material_renamed_keeps_its_surfaces(shoebox_path):
    s = ardent.Scene.load(shoebox_path)
    with pytest.raises(ValueError, match='"R1" exists already'):
        s.add_source("R1", (1, 1, 1))  # sources and receivers share their names
    with pytest.raises(ValueError, match='"S1" exists already'):
        s.receivers.append(ardent.Emitter("S1", (1, 1, 1)))
    with pytest.raises(ValueError, match='"R2" exists already'):
        s.receivers[0].name = "R2"
    with pytest.raises(ValueError, match="exists already"):
        s.receivers = [ardent.Emitter("A", (1, 1, 1)), ardent.Emitter("A", (2, 2, 2))]
    assert s.receivers.names() == ["R1", "R2"]
    s.material("hard_surface").name = "concrete"
    assert s.to_dict()["surfaces"]["*"] == "concrete"
    s.validate()
