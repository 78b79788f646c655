// Ardent's C++ errors as Python exceptions, one type per kind (docs/python.md, "Errors"): bad input
// (ardent.InputError, a ValueError; ardent.SceneError when a scene key or object is at fault),
// missing resources (ardent.ResourceError), a solver run that failed (ardent.SolverError). Each
// carries the message the CLI prints and, apart, the file, key and object it names (None where
// not known).
#include <string>

#include <pybind11/pybind11.h>

#include "ardent/pipeline/simulate.h"
#include "ardent/preprocess/errors.h"
#include "ardent/solvers/solver.h"
#include "bindings.h"

namespace py = pybind11;

namespace ardent::python {
namespace {

// Kept alive for the process: the module object holds them as attributes too.
PyObject* g_error = nullptr;
PyObject* g_input = nullptr;
PyObject* g_scene = nullptr;
PyObject* g_resource = nullptr;
PyObject* g_solver = nullptr;

PyObject* new_exception(py::module_& m, const char* name, const char* doc, py::tuple bases) {
    const std::string qualified = std::string("ardent.") + name;
    // The attributes exist on every instance, None unless the translator below sets them (an
    // InputError raised in Python code has them too).
    py::dict attrs;
    attrs["file"] = py::none();
    attrs["key"] = py::none();
    attrs["object"] = py::none();
    PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), attrs.ptr());
    if (!type) throw py::error_already_set();
    m.add_object(name, py::handle(type));
    return type;
}

// Text from C++ as a Python str, whatever its bytes (a file name need not be UTF-8).
py::str text(const std::string& s) {
    return py::reinterpret_steal<py::str>(
        PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

// "<memory>" names a scene that has no file (one from a dict).
py::object optional_text(const std::string& s) {
    return s.empty() || s == "<memory>" ? py::none() : py::object(text(s));
}

// Raises `type(message)` with the attributes file, key and object set.
void raise(PyObject* type, const std::string& message, const ErrorSubject& subject) {
    py::object exc = py::reinterpret_borrow<py::object>(type)(text(message));
    exc.attr("file") = optional_text(subject.file);
    exc.attr("key") = optional_text(subject.key);
    exc.attr("object") = optional_text(subject.object);
    PyErr_SetObject(type, exc.ptr());
}

}  // namespace

void bind_errors(py::module_& m) {
    g_error = new_exception(m, "Error", "Base of every error Ardent raises.",
                            py::make_tuple(py::handle(PyExc_Exception)));
    g_input = new_exception(
        m, "InputError",
        "Bad input: a scene, a file or an argument (the command line's exit code 2). The message "
        "names what is wrong; `file`, `key` and `object` carry the file, the scene key and the "
        "named source or receiver where known (else None).",
        py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError)));
    g_scene = new_exception(
        m, "SceneError",
        "An InputError at a key of a scene or about one of its objects (`key`, `object`).",
        py::make_tuple(py::handle(g_input)));
    g_resource = new_exception(
        m, "ResourceError",
        "The machine lacks what the run needs: memory, a GPU (the command line's exit code 3).",
        py::make_tuple(py::handle(g_error), py::handle(PyExc_RuntimeError)));
    g_solver = new_exception(m, "SolverError",
                             "A solver run failed, e.g. its field grew without bound (exit code "
                             "1); nothing was written.",
                             py::make_tuple(py::handle(g_error), py::handle(PyExc_RuntimeError)));
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            const ErrorSubject& s = e.subject();
            raise(s.key.empty() && s.object.empty() ? g_input : g_scene, e.what(), s);
        } catch (const ResourceError& e) {
            raise(g_resource, e.what(), {});
        } catch (const SolverError& e) {
            raise(g_solver, e.what(), {});
        } catch (const pipeline::Cancelled& e) {
            PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
        }
    });
}

}  // namespace ardent::python
