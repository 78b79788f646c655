// ardent.Scene and its parts (docs/python.md, "Scenes"): the C++ Scene itself, read and written by
// the same parser and writer as the command line. Sources, receivers and materials are edited in
// place through list-like views; any edit is checked as the CLI checks a file, by writing the
// scene's text and reading it back (Scene.validate, called by simulate, info and save), so the
// messages and the rules are the CLI's.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/scene_writer.h"
#include "bindings.h"
#include "scene_check.h"
#include "scene_views.h"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace ardent::python {

Scene checked(const Scene& scene) {
    return parse_scene(scene_text(scene, scene.file), scene.file);
}

namespace {

void remove_by_name(std::vector<Emitter>& items, const std::string& name, const char* kind) {
    const auto it =
        std::find_if(items.begin(), items.end(), [&](const Emitter& e) { return e.name == name; });
    if (it == items.end())
        throw py::key_error(std::string("the scene has no ") + kind + " named \"" + name + "\"");
    items.erase(it);
}

std::string repr_vec(const Vec3& v) {
    return "(" + py::repr(py::float_(v.x)).cast<std::string>() + ", " +
           py::repr(py::float_(v.y)).cast<std::string>() + ", " +
           py::repr(py::float_(v.z)).cast<std::string>() + ")";
}

void bind_parts(py::module_& m) {
    py::class_<Emitter>(m, "Emitter", "A source or a receiver: a name and a position in metres.")
        .def(py::init([](std::string name, const py::handle& position) {
                 return Emitter{std::move(name), to_vec3(position, "position")};
             }),
             py::arg("name"), py::arg("position"))
        .def_readwrite("name", &Emitter::name)
        .def_property(
            "position", [](const Emitter& e) { return from_vec3(e.position); },
            [](Emitter& e, const py::handle& p) { e.position = to_vec3(p, "position"); },
            "(x, y, z) in metres, the model's axes")
        .def("__repr__", [](const Emitter& e) {
            return "Emitter(" + py::repr(py::str(e.name)).cast<std::string>() + ", " +
                   repr_vec(e.position) + ")";
        });

    py::class_<Material>(m, "Material",
                         "A material: random-incidence absorption and scattering, one number or "
                         "per band ({centre Hz: value}).")
        .def(py::init([](std::string name, const py::handle& absorption) {
                 Material mat;
                 mat.name = std::move(name);
                 set_absorption(mat, absorption);
                 return mat;
             }),
             py::arg("name"), py::arg("absorption") = 0.0)
        .def_readwrite("name", &Material::name)
        .def_property("absorption", &absorption_of, &set_absorption,
                      "Random-incidence absorption: a number, or {centre Hz: alpha}")
        .def_property(
            "scattering", &scattering_of, &set_scattering,
            "Scattering coefficient: None (the default, 0.4), a number, or {centre Hz: s}")
        .def("absorption_at", &Material::absorption_at, py::arg("hz"),
             "The random-incidence absorption at a frequency, interpolated in log frequency")
        .def("scattering_at", &Material::scattering_at, py::arg("hz"))
        .def("__repr__", [](const Material& mat) {
            return "Material(" + py::repr(py::str(mat.name)).cast<std::string>() + ", " +
                   py::repr(absorption_of(mat)).cast<std::string>() + ")";
        });

    py::class_<SimulationSettings>(m, "SimulationSettings", "The scene's `simulation` keys.")
        .def_readwrite("solver", &SimulationSettings::solver, "\"ard\" or \"fdtd\"")
        .def_readwrite("device", &SimulationSettings::device, "\"auto\", \"cpu\" or \"cuda\"")
        .def_readwrite("max_frequency", &SimulationSettings::max_frequency, "Hz")
        .def_readwrite("duration", &SimulationSettings::duration, "s")
        .def_readwrite("points_per_wavelength", &SimulationSettings::points_per_wavelength,
                       "None: the solver's default")
        .def_readwrite("speed_of_sound", &SimulationSettings::speed_of_sound, "m/s")
        .def_readwrite("band", &SimulationSettings::band, "\"full\" or \"wave\"")
        .def_readwrite("crossover_hz", &SimulationSettings::crossover_hz, "None: 0.6 max_frequency")
        .def_readwrite("partition_sides", &SimulationSettings::partition_sides)
        .def_property_readonly("cell_size", &SimulationSettings::cell_size, "m");

    py::class_<GeometricSettings>(m, "GeometricSettings", "The scene's `geometric` keys.")
        .def_readwrite("rays", &GeometricSettings::rays, "rays per source; 0: from the volume")
        .def_readwrite("image_source_order", &GeometricSettings::image_source_order);

    py::class_<Atmosphere>(m, "Air", "The scene's `air` keys.")
        .def_readwrite("temperature_c", &Atmosphere::temperature_c)
        .def_readwrite("relative_humidity", &Atmosphere::relative_humidity, "percent")
        .def_readwrite("pressure_kpa", &Atmosphere::pressure_kpa)
        .def_readwrite("absorption", &Atmosphere::absorption,
                       "filter the outputs with the air's absorption");
}

}  // namespace

void bind_scene(py::module_& m) {
    bind_parts(m);
    bind_scene_views(m);
    py::class_<Scene>(m, "Scene",
                      "An ardent-scene/1 scene (docs/scene-format.md). Load one with "
                      "Scene.load(path) or Scene.from_dict(d); edit it in place; save(), "
                      "simulate() and info() check it as the command line checks a file.")
        .def_static(
            "load", [](const fs::path& path) { return load_scene(path); }, py::arg("path"),
            "Reads and checks a scene file (SceneError naming the key when it is wrong)")
        .def_static(
            "from_dict",
            [](const py::handle& d, const std::optional<fs::path>& base_dir) {
                // Ordered: the surfaces' order is their meaning (the first match wins).
                nlohmann::ordered_json j = nlohmann::ordered_json::parse(to_json_text(d));
                // A relative mesh path is taken from base_dir; everything else is the parser's.
                if (j.is_object() && j.contains("geometry") && j["geometry"].is_object() &&
                    j["geometry"].contains("mesh") && j["geometry"]["mesh"].is_string()) {
                    const fs::path mesh = j["geometry"]["mesh"].get<std::string>();
                    if (mesh.is_relative() && !mesh.empty())
                        j["geometry"]["mesh"] =
                            (fs::absolute(base_dir.value_or(fs::current_path())) / mesh)
                                .lexically_normal()
                                .string();
                }
                return parse_scene(j.dump(), {});
            },
            py::arg("d"), py::arg("base_dir") = py::none(),
            "A scene from a dict with a scene file's keys; relative mesh paths are taken from "
            "base_dir (default: the working directory)")
        .def(
            "to_dict", [](const Scene& s) { return to_python(scene_json(s, s.file)); },
            "The scene as a dict with a scene file's keys")
        .def(
            "save",
            [](const Scene& s, const fs::path& path, bool overwrite) {
                OutputRules rules;
                rules.replace = overwrite;
                rules.replace_hint = "overwrite=True";
                rules.inputs = scene_inputs(s);
                check_output_file(path, rules);
                Scene copy = s;
                copy.file = fs::absolute(path);
                // Checked as the file will be read: its mesh path relative to its new folder.
                checked(copy);
                save_scene(copy, path, rules);
            },
            py::arg("path"), py::arg("overwrite") = false,
            "Writes the scene (atomically); an existing file only with overwrite=True")
        .def(
            "validate", [](const Scene& s) { checked(s); },
            "Checks the scene as `ardent simulate` checks a file; SceneError otherwise")
        .def("copy", [](const Scene& s) { return Scene(s); })
        .def("__copy__", [](const Scene& s) { return Scene(s); })
        .def("__deepcopy__", [](const Scene& s, const py::handle&) { return Scene(s); })
        .def_property(
            "file",
            [](const Scene& s) -> py::object {
                if (s.file.empty()) return py::none();
                return py::cast(s.file);
            },
            nullptr, "The file it was read from (None for a scene from a dict)")
        .def_readwrite("name", &Scene::name)
        .def_property(
            "sources",
            [](py::object self) {
                return EmitterList{self, ListKind::Sources};
            },
            [](Scene& s, const py::iterable& v) { assign_list(s, ListKind::Sources, v); })
        .def_property(
            "receivers",
            [](py::object self) {
                return EmitterList{self, ListKind::Receivers};
            },
            [](Scene& s, const py::iterable& v) { assign_list(s, ListKind::Receivers, v); })
        .def_property(
            "materials", [](py::object self) { return MaterialList{self}; },
            [](Scene& s, const py::iterable& v) { assign_list(s, ListKind::Materials, v); })
        .def_readwrite("simulation", &Scene::simulation)
        .def_readwrite("geometric", &Scene::geometric)
        .def_readwrite("air", &Scene::air)
        .def_readwrite("output_sample_rate", &Scene::output_sample_rate, "Hz of the IR files")
        .def_property(
            "listener_grid_spacing_m",
            [](const Scene& s) -> py::object {
                if (s.listener_grid_spacing_m > 0) return py::float_(s.listener_grid_spacing_m);
                if (s.listener_grid_every > 0)
                    return py::float_(s.listener_grid_every * s.simulation.cell_size());
                return py::none();
            },
            [](Scene& s, std::optional<double> v) {
                s.listener_grid_every = 0;
                s.listener_grid_spacing_m = v ? *v : 0.0;
            },
            "Metres between listener-grid points (None: no grid)")
        .def_readwrite("listener_grid_every", &Scene::listener_grid_every,
                       "Cells between listener-grid points, when given in cells (0: in metres "
                       "or no grid)")
        .def(
            "source",
            [](py::object self, const std::string& name) {
                return emitter_view(self, ListKind::Sources, name);
            },
            py::arg("name"), "The source named so, edited in place (KeyError when none)")
        .def(
            "receiver",
            [](py::object self, const std::string& name) {
                return emitter_view(self, ListKind::Receivers, name);
            },
            py::arg("name"))
        .def(
            "material",
            [](py::object self, const std::string& name) { return material_view(self, name); },
            py::arg("name"))
        .def(
            "add_source",
            [](Scene& s, std::string name, const py::handle& position) {
                add_emitter(s, ListKind::Sources, {std::move(name), to_vec3(position, "position")});
            },
            py::arg("name"), py::arg("position"))
        .def(
            "add_receiver",
            [](Scene& s, std::string name, const py::handle& position) {
                add_emitter(s, ListKind::Receivers,
                            {std::move(name), to_vec3(position, "position")});
            },
            py::arg("name"), py::arg("position"))
        .def(
            "remove_source",
            [](Scene& s, const std::string& name) { remove_by_name(s.sources, name, "source"); },
            py::arg("name"))
        .def(
            "remove_receiver",
            [](Scene& s, const std::string& name) {
                remove_by_name(s.receivers, name, "receiver");
            },
            py::arg("name"))
        .def(
            "__eq__", [](const Scene& a, const Scene& b) { return same_scene(a, b); },
            py::is_operator())
        .def("__repr__", [](const Scene& s) {
            return "<ardent.Scene " + py::repr(py::str(s.name)).cast<std::string>() + ": " +
                   std::to_string(s.sources.size()) + " sources, " +
                   std::to_string(s.receivers.size()) + " receivers, " +
                   std::to_string(s.materials.size()) + " materials>";
        });
}

}  // namespace ardent::python
