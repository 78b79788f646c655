// Live views of a Scene's sources, receivers and materials for Python (docs/python.md, "Scenes").
// A view holds the Scene's Python object and, for one element, its name; every access looks the
// element up again. Python objects therefore never point into a vector that an edit may move: an
// element held across `scene.sources.append(...)` would otherwise point into freed memory, and
// one held across a removal at another element. An element that is gone raises KeyError.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "ardent/preprocess/scene.h"

namespace ardent::python {

enum class ListKind { Sources, Receivers, Materials };

// One C++ type per Python class (pybind11 registers each type once).
struct EmitterList {
    pybind11::object scene;
    ListKind kind;  // Sources or Receivers
};
struct MaterialList {
    pybind11::object scene;
    ListKind kind = ListKind::Materials;
};
struct EmitterView {
    pybind11::object scene;
    ListKind kind;
    std::string name;
};
struct MaterialView {
    pybind11::object scene;
    ListKind kind = ListKind::Materials;
    std::string name;
};

// The classes ardent.EmitterList, ardent.MaterialList, ardent.SceneEmitter, ardent.SceneMaterial.
void bind_scene_views(pybind11::module_& m);

// A view of the scene's element `name` (KeyError when there is none).
EmitterView emitter_view(const pybind11::object& scene, ListKind kind, const std::string& name);
MaterialView material_view(const pybind11::object& scene, const std::string& name);

// Replaces a list of the scene with `items` (Emitter or Material values, or views of elements);
// ValueError for a name used twice (views find elements by name).
void assign_list(Scene& scene, ListKind kind, const pybind11::iterable& items);
// Appends a source or receiver; ValueError when a source or receiver has its name already.
void add_emitter(Scene& scene, ListKind kind, Emitter e);

// A material's coefficients as Python sees them and sets them: a number, or {centre Hz: value};
// scattering None for the default. Shared by ardent.Material and ardent.SceneMaterial.
pybind11::object absorption_of(const Material& m);
void set_absorption(Material& m, const pybind11::handle& value);  // drops lab data
pybind11::object scattering_of(const Material& m);
void set_scattering(Material& m, const pybind11::handle& value);

}  // namespace ardent::python
