// The compiled part of the Python module, `ardent._ardent` (docs/python.md); the package `ardent`
// (python/ardent/__init__.py) re-exports it. Also the conversions bindings.h declares.
#include <cmath>
#include <string>

#include <pybind11/pybind11.h>

#include "bindings.h"
#include "hdf5_lock.h"

namespace py = pybind11;

namespace ardent::python {

py::object to_python(const nlohmann::ordered_json& j) {
    return py::module_::import("json").attr("loads")(j.dump());
}

std::string to_json_text(const py::handle& value) {
    // JSON has no NaN: json.dumps refuses one (ValueError) rather than write what the parser
    // would reject without naming the key.
    return py::module_::import("json")
        .attr("dumps")(value, py::arg("allow_nan") = false, py::arg("default") = py::none())
        .cast<std::string>();
}

std::array<double, 3> to_point(const py::handle& value, const char* what) {
    py::sequence seq;
    try {
        seq = py::reinterpret_borrow<py::sequence>(
            py::module_::import("builtins").attr("tuple")(value));
    } catch (const py::error_already_set&) {
        throw py::type_error(std::string(what) + ": expected three numbers (x, y, z), got " +
                             py::repr(value).cast<std::string>());
    }
    if (seq.size() != 3)
        throw py::value_error(std::string(what) + ": expected three numbers (x, y, z), got " +
                              std::to_string(seq.size()));
    std::array<double, 3> p{};
    for (size_t i = 0; i < 3; ++i) {
        try {
            p[i] = py::cast<double>(seq[i]);
        } catch (const py::cast_error&) {
            throw py::type_error(std::string(what) + ": expected three numbers (x, y, z), got " +
                                 py::repr(value).cast<std::string>());
        }
        if (!std::isfinite(p[i]))
            throw py::value_error(std::string(what) + ": expected finite numbers, got " +
                                  py::repr(value).cast<std::string>());
    }
    return p;
}

Vec3 to_vec3(const py::handle& value, const char* what) {
    const auto p = to_point(value, what);
    return {p[0], p[1], p[2]};
}

py::tuple from_vec3(const Vec3& v) {
    return py::make_tuple(v.x, v.y, v.z);
}

std::recursive_mutex& hdf5_mutex() {
    static std::recursive_mutex m;
    return m;
}

}  // namespace ardent::python

PYBIND11_MODULE(_ardent, m) {
    m.doc() = "Ardent's compiled core; use the package `ardent`, which re-exports it.";
    ardent::python::bind_errors(m);
    ardent::python::bind_scene(m);
    ardent::python::bind_simulate(m);
    ardent::python::bind_audio(m);
    ardent::python::bind_grid(m);
}
