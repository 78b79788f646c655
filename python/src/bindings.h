// The pieces of the Python module `ardent._ardent` (docs/python.md), one per file: errors, the
// scene, simulate and info, audio (analysis, auralization, reading WAVs) and the listener grid.
// Each bind_* adds its classes and functions to the module; module.cpp calls them in order.
// Conversions every piece needs (JSON to Python objects, 3-vectors) are here too.
#pragma once

#include <array>
#include <string>

#include <pybind11/pybind11.h>
#include <nlohmann/json.hpp>

#include "ardent/preprocess/vec.h"

namespace ardent::python {

void bind_errors(pybind11::module_& m);
void bind_scene(pybind11::module_& m);
void bind_simulate(pybind11::module_& m);
void bind_audio(pybind11::module_& m);
void bind_grid(pybind11::module_& m);

// A JSON value as Python objects (dict, list, str, float, int, bool, None), through Python's json
// module so that every number keeps its exact value.
pybind11::object to_python(const nlohmann::ordered_json& j);
// A Python dict (or anything json.dumps takes) as JSON text.
std::string to_json_text(const pybind11::handle& value);

// Three finite numbers from any sequence of length 3 (tuple, list, NumPy array); TypeError or
// ValueError naming `what` otherwise.
Vec3 to_vec3(const pybind11::handle& value, const char* what);
std::array<double, 3> to_point(const pybind11::handle& value, const char* what);
pybind11::tuple from_vec3(const Vec3& v);

}  // namespace ardent::python
