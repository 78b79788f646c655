#include "scene_views.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.h"

namespace py = pybind11;

namespace ardent::python {
namespace {

Scene& scene_of(const py::object& o) {
    return py::cast<Scene&>(o);
}

const char* kind_name(ListKind k) {
    return k == ListKind::Sources ? "source" : k == ListKind::Receivers ? "receiver" : "material";
}

std::vector<Emitter>& emitters(Scene& s, ListKind k) {
    return k == ListKind::Sources ? s.sources : s.receivers;
}

size_t list_size(Scene& s, ListKind k) {
    return k == ListKind::Materials ? s.materials.size() : emitters(s, k).size();
}

const std::string& name_at(Scene& s, ListKind k, size_t i) {
    return k == ListKind::Materials ? s.materials[i].name : emitters(s, k)[i].name;
}

// Index of element `name`, or of `i` counted from the end when negative; KeyError / IndexError.
size_t find(Scene& s, ListKind k, const std::string& name) {
    for (size_t i = 0; i < list_size(s, k); ++i)
        if (name_at(s, k, i) == name) return i;
    throw py::key_error(std::string("the scene has no ") + kind_name(k) + " named \"" + name +
                        "\"");
}

size_t index_of(Scene& s, ListKind k, const py::handle& key) {
    if (py::isinstance<py::str>(key)) return find(s, k, key.cast<std::string>());
    auto i = py::cast<py::ssize_t>(key);
    const auto n = static_cast<py::ssize_t>(list_size(s, k));
    if (i < 0) i += n;
    if (i < 0 || i >= n)
        throw py::index_error(std::string(kind_name(k)) + " index " +
                              py::str(key).cast<std::string>() + " out of range (" +
                              std::to_string(n) + ")");
    return static_cast<size_t>(i);
}

// Views find elements by name, so names stay unique: among the sources and receivers together
// (as the scene file's reader has them) and among the materials.
bool name_taken(Scene& s, ListKind k, const std::string& name) {
    if (k == ListKind::Materials)
        return std::any_of(s.materials.begin(), s.materials.end(),
                           [&](const Material& m) { return m.name == name; });
    for (const auto* list : {&s.sources, &s.receivers})
        for (const Emitter& e : *list)
            if (e.name == name) return true;
    return false;
}

void check_new_name(Scene& s, ListKind k, const std::string& name) {
    if (name_taken(s, k, name))
        throw py::value_error(
            std::string(k == ListKind::Materials ? "a material" : "a source or receiver") +
            " named \"" + name + "\" exists already");
}

Emitter& emitter(const EmitterView& v) {
    Scene& s = scene_of(v.scene);
    return emitters(s, v.kind)[find(s, v.kind, v.name)];
}

Material& material(const MaterialView& v) {
    Scene& s = scene_of(v.scene);
    return s.materials[find(s, v.kind, v.name)];
}

std::string repr_bands(const Material& m) {
    return py::repr(absorption_of(m)).cast<std::string>();
}

std::string repr_emitter(const char* cls, const Emitter& e) {
    return std::string(cls) + "(" + py::repr(py::str(e.name)).cast<std::string>() + ", " +
           py::repr(from_vec3(e.position)).cast<std::string>() + ")";
}

double number(const py::handle& v, const char* what) {
    try {
        return py::cast<double>(v);
    } catch (const py::cast_error&) {
        throw py::type_error(std::string(what) + ": expected a number, got " +
                             py::repr(v).cast<std::string>());
    }
}

Emitter emitter_value(const py::handle& item) {
    if (py::isinstance<EmitterView>(item)) return emitter(item.cast<const EmitterView&>());
    try {
        return item.cast<Emitter>();
    } catch (const py::cast_error&) {
        throw py::type_error("expected an ardent.Emitter, got " +
                             py::repr(item).cast<std::string>());
    }
}

Material material_value(const py::handle& item) {
    if (py::isinstance<MaterialView>(item)) return material(item.cast<const MaterialView&>());
    try {
        return item.cast<Material>();
    } catch (const py::cast_error&) {
        throw py::type_error("expected an ardent.Material, got " +
                             py::repr(item).cast<std::string>());
    }
}

// What both lists have: length, indexing and deletion by position or name, iteration over views
// of the elements there now, `in` by name, names().
template <class List, class View>
py::class_<List> bind_list(py::module_& m, const char* name, const char* doc) {
    return py::class_<List>(m, name, doc)
        .def("__len__", [](const List& l) { return list_size(scene_of(l.scene), l.kind); })
        .def("__getitem__",
             [](const List& l, const py::handle& key) {
                 Scene& s = scene_of(l.scene);
                 return View{l.scene, l.kind, name_at(s, l.kind, index_of(s, l.kind, key))};
             })
        .def("__delitem__",
             [](const List& l, const py::handle& key) {
                 Scene& s = scene_of(l.scene);
                 const auto i = static_cast<std::ptrdiff_t>(index_of(s, l.kind, key));
                 if (l.kind == ListKind::Materials)
                     s.materials.erase(s.materials.begin() + i);
                 else
                     emitters(s, l.kind).erase(emitters(s, l.kind).begin() + i);
             })
        .def("__iter__",
             [](const List& l) {
                 Scene& s = scene_of(l.scene);
                 py::list out;
                 for (size_t i = 0; i < list_size(s, l.kind); ++i)
                     out.append(py::cast(View{l.scene, l.kind, name_at(s, l.kind, i)}));
                 return py::iter(out);
             })
        .def("__contains__",
             [](const List& l, const std::string& n) {
                 Scene& s = scene_of(l.scene);
                 for (size_t i = 0; i < list_size(s, l.kind); ++i)
                     if (name_at(s, l.kind, i) == n) return true;
                 return false;
             })
        .def("names", [](const List& l) {
            Scene& s = scene_of(l.scene);
            std::vector<std::string> out;
            for (size_t i = 0; i < list_size(s, l.kind); ++i)
                out.push_back(name_at(s, l.kind, i));
            return out;
        });
}

}  // namespace

namespace {

py::object bands_to_python(const std::vector<AbsorptionBand>& bands, bool per_band) {
    if (!per_band) return py::float_(bands.empty() ? 0.0 : bands.front().alpha);
    py::dict d;
    for (const AbsorptionBand& b : bands)
        d[py::float_(b.hz)] = b.alpha;
    return d;
}

std::vector<AbsorptionBand> bands_from_python(const py::handle& v, const char* what,
                                              bool& per_band) {
    std::vector<AbsorptionBand> bands;
    if (py::isinstance<py::dict>(v)) {
        for (const auto& [k, a] : py::reinterpret_borrow<py::dict>(v))
            bands.push_back({number(k, what), number(a, what)});
        if (bands.empty())
            throw py::value_error(std::string(what) + ": give a number or at least one band");
        std::sort(bands.begin(), bands.end(),
                  [](const AbsorptionBand& a, const AbsorptionBand& b) { return a.hz < b.hz; });
        per_band = true;
    } else {
        bands.push_back({0, number(v, what)});
        per_band = false;
    }
    return bands;
}

}  // namespace

py::object absorption_of(const Material& m) {
    return bands_to_python(m.absorption, m.per_band);
}

void set_absorption(Material& m, const py::handle& value) {
    bool per_band = false;
    m.set_bands(bands_from_python(value, "absorption", per_band));  // drops lab data
    m.per_band = per_band;
}

py::object scattering_of(const Material& m) {
    if (m.scattering.empty()) return py::none();
    return bands_to_python(m.scattering, m.scattering_per_band);
}

void set_scattering(Material& m, const py::handle& value) {
    bool per_band = false;
    m.scattering = value.is_none() ? std::vector<AbsorptionBand>{}
                                   : bands_from_python(value, "scattering", per_band);
    m.scattering_per_band = per_band;
}

EmitterView emitter_view(const py::object& scene, ListKind kind, const std::string& name) {
    find(scene_of(scene), kind, name);  // KeyError now rather than at the first use
    return {scene, kind, name};
}

MaterialView material_view(const py::object& scene, const std::string& name) {
    find(scene_of(scene), ListKind::Materials, name);
    return {scene, ListKind::Materials, name};
}

void assign_list(Scene& s, ListKind kind, const py::iterable& items) {
    // Built apart, then each element added as append() adds it, so the names stay unique.
    Scene next = s;
    if (kind == ListKind::Materials) {
        std::vector<Material> v;
        for (const py::handle& item : items)
            v.push_back(material_value(item));
        next.materials.clear();
        for (Material& m : v) {
            check_new_name(next, kind, m.name);
            next.materials.push_back(std::move(m));
        }
    } else {
        std::vector<Emitter> v;
        for (const py::handle& item : items)
            v.push_back(emitter_value(item));
        emitters(next, kind).clear();
        for (Emitter& e : v) {
            check_new_name(next, kind, e.name);
            emitters(next, kind).push_back(std::move(e));
        }
    }
    s = std::move(next);
}

void add_emitter(Scene& s, ListKind kind, Emitter e) {
    check_new_name(s, kind, e.name);
    emitters(s, kind).push_back(std::move(e));
}

void bind_scene_views(py::module_& m) {
    py::class_<EmitterView>(
        m, "SceneEmitter",
        "A source or receiver of a scene, edited in place: each access finds it "
        "by name (KeyError once it is removed)")
        .def_property(
            "name", [](const EmitterView& v) { return emitter(v).name; },
            [](EmitterView& v, std::string name) {
                Emitter& e = emitter(v);
                if (name == e.name) return;
                check_new_name(scene_of(v.scene), v.kind, name);
                e.name = name;
                v.name = std::move(name);
            })
        .def_property(
            "position", [](const EmitterView& v) { return from_vec3(emitter(v).position); },
            [](const EmitterView& v, const py::handle& p) {
                emitter(v).position = to_vec3(p, "position");
            },
            "(x, y, z) in metres, the model's axes")
        .def("value", &emitter, "A copy of it as an ardent.Emitter")
        .def("__repr__",
             [](const EmitterView& v) { return repr_emitter("SceneEmitter", emitter(v)); });

    py::class_<MaterialView>(m, "SceneMaterial",
                             "A material of a scene, edited in place: each access finds it by name "
                             "(KeyError once it is removed)")
        .def_property(
            "name", [](const MaterialView& v) { return material(v).name; },
            [](MaterialView& v, std::string name) {
                Material& mat = material(v);
                if (name == mat.name) return;
                Scene& s = scene_of(v.scene);
                check_new_name(s, ListKind::Materials, name);
                // The surface rules follow their material.
                for (SurfaceRule& r : s.surfaces)
                    if (r.material == mat.name) r.material = name;
                mat.name = name;
                v.name = std::move(name);
            },
            "Renaming a material renames it in the surface rules too")
        .def_property(
            "absorption", [](const MaterialView& v) { return absorption_of(material(v)); },
            [](const MaterialView& v, const py::handle& value) {
                set_absorption(material(v), value);
            },
            "Random-incidence absorption: a number, or {centre Hz: alpha}")
        .def_property(
            "scattering", [](const MaterialView& v) { return scattering_of(material(v)); },
            [](const MaterialView& v, const py::handle& value) {
                set_scattering(material(v), value);
            },
            "Scattering coefficient: None (the default, 0.4), a number, or {centre Hz: s}")
        .def(
            "absorption_at",
            [](const MaterialView& v, double hz) { return material(v).absorption_at(hz); },
            py::arg("hz"))
        .def(
            "scattering_at",
            [](const MaterialView& v, double hz) { return material(v).scattering_at(hz); },
            py::arg("hz"))
        .def("value", &material, "A copy of it as an ardent.Material")
        .def("__repr__", [](const MaterialView& v) {
            return "SceneMaterial(" + py::repr(py::str(v.name)).cast<std::string>() + ", " +
                   repr_bands(material(v)) + ")";
        });

    bind_list<EmitterList, EmitterView>(
        m, "EmitterList",
        "The sources or receivers of a scene: index by position or name; append an "
        "ardent.Emitter; del by position or name. Elements are SceneEmitter views, edited in "
        "place.")
        .def(
            "append",
            [](const EmitterList& l, const py::handle& e) {
                Scene& s = scene_of(l.scene);
                Emitter value = emitter_value(e);
                check_new_name(s, l.kind, value.name);
                emitters(s, l.kind).push_back(std::move(value));
            },
            py::arg("emitter"))
        .def("__repr__", [](const EmitterList& l) {
            std::string r = "[";
            for (const Emitter& e : emitters(scene_of(l.scene), l.kind))
                r += (r.size() > 1 ? ", " : "") + repr_emitter("Emitter", e);
            return r + "]";
        });
    bind_list<MaterialList, MaterialView>(
        m, "MaterialList",
        "The materials of a scene: index by position or name; append an ardent.Material; del by "
        "position or name. Elements are SceneMaterial views, edited in place.")
        .def(
            "append",
            [](const MaterialList& l, const py::handle& mat) {
                Scene& s = scene_of(l.scene);
                Material value = material_value(mat);
                check_new_name(s, ListKind::Materials, value.name);
                s.materials.push_back(std::move(value));
            },
            py::arg("material"))
        .def("__repr__", [](const MaterialList& l) {
            std::string r = "[";
            for (const Material& mat : scene_of(l.scene).materials)
                r += (r.size() > 1 ? ", " : "") + std::string("Material(") +
                     py::repr(py::str(mat.name)).cast<std::string>() + ", " + repr_bands(mat) + ")";
            return r + "]";
        });
}

}  // namespace ardent::python
