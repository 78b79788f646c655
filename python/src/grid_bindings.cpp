// ardent.Grid (docs/python.md, "The listener grid"): a listener-grid file (grid/<source>.h5) read
// through the reader `ardent auralize` and the editor use, points' IRs read when asked for. The
// stored rows are the wave band at the grid's own rate; full_band_ir() gives a point's IR as
// `ardent auralize` hears it there (the geometric part joined above the crossover, at the output
// rate).
#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "ardent/auralize/ir_grid.h"
#include "ardent/pipeline/grid_full_band.h"
#include "bindings.h"
#include "hdf5_lock.h"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace ardent::python {
namespace {

using auralize::IrGrid;

size_t checked_index(const IrGrid& g, py::ssize_t i) {
    const auto n = static_cast<py::ssize_t>(g.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n)
        throw py::index_error("point " + std::to_string(i) + " of a grid of " + std::to_string(n));
    return static_cast<size_t>(i);
}

py::array_t<float> vector_array(const std::vector<float>& v) {
    py::array_t<float> out(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), out.mutable_data());
    return out;
}

// Closing the file is an HDF5 call too.
struct LockedDelete {
    void operator()(IrGrid* g) const {
        Hdf5Lock lock;
        delete g;
    }
};
using GridHolder = std::unique_ptr<IrGrid, LockedDelete>;

}  // namespace

void bind_grid(py::module_& m) {
    py::class_<IrGrid, GridHolder>(m, "Grid",
                                   "A listener-grid file written by simulate (grid/<source>.h5; "
                                   "docs/output-format.md). Rows are read when asked for.")
        .def(py::init([](const fs::path& file) {
                 Hdf5Lock lock;
                 return GridHolder(new IrGrid(file));
             }),
             py::arg("file"))
        .def("__len__", &IrGrid::size)
        .def_property_readonly("file", &IrGrid::file)
        .def_property_readonly("source", &IrGrid::source)
        .def_property_readonly("sample_rate", &IrGrid::sample_rate,
                               "Hz of the stored rows (the wave band's rate)")
        .def_property_readonly("output_sample_rate", &IrGrid::output_sample_rate,
                               "Hz of the scene's outputs (full_band_ir's rate)")
        .def_property_readonly("spacing", &IrGrid::spacing, "metres between points")
        .def_property_readonly("samples", &IrGrid::samples, "samples per stored row")
        .def_property_readonly(
            "full_band", [](const IrGrid& g) { return g.geometric() != nullptr; },
            "True for a full-band run's grid (a geometric part above the "
            "crossover)")
        .def_property_readonly(
            "positions",
            [](const IrGrid& g) {
                py::array_t<double> out({static_cast<py::ssize_t>(g.size()), py::ssize_t{3}});
                double* p = out.mutable_data();
                for (const auto& q : g.positions())
                    p = std::copy(q.begin(), q.end(), p);
                return out;
            },
            "(points, 3) float64: metres, the model's axes")
        .def(
            "ir",
            [](const IrGrid& g, py::ssize_t i) {
                const size_t k = checked_index(g, i);
                std::vector<float> row;
                {
                    Hdf5Lock lock;
                    row = g.ir(k);
                }
                return vector_array(row);
            },
            py::arg("point"), "A point's stored row: the wave band at sample_rate, float32")
        .def(
            "irs",
            [](const IrGrid& g) {
                const auto n = static_cast<py::ssize_t>(g.size());
                const auto t = static_cast<py::ssize_t>(g.samples());
                py::array_t<float> out({n, t});
                float* p = out.mutable_data();
                Hdf5Lock lock;  // fills the array's memory: no Python object is touched
                for (size_t i = 0; i < g.size(); ++i) {
                    const std::vector<float> row = g.ir(i);
                    p = std::copy(row.begin(), row.end(), p);
                }
                return out;
            },
            "Every stored row, (points, samples) float32 (read now: the whole file)")
        .def(
            "gradient",
            [](const IrGrid& g, py::ssize_t i) {
                const size_t k = checked_index(g, i);
                if (!g.has_gradient()) throw py::value_error("this grid file has no gradients");
                std::array<std::vector<float>, 3> d;
                {
                    Hdf5Lock lock;
                    d = g.gradient(k);
                }
                py::array_t<float> out({py::ssize_t{3}, static_cast<py::ssize_t>(g.samples())});
                float* p = out.mutable_data();
                for (const auto& row : d)
                    p = std::copy(row.begin(), row.end(), p);
                return out;
            },
            py::arg("point"), "dp/dx, dp/dy, dp/dz of a point, (3, samples) float32, Pa/m")
        .def(
            "full_band_ir",
            [](const IrGrid& g, py::ssize_t i) {
                const size_t k = checked_index(g, i);
                std::vector<float> full;
                {
                    Hdf5Lock lock;
                    full = pipeline::grid_point_ir(g, k, g.ir(k), g.output_sample_rate());
                }
                return vector_array(full);
            },
            py::arg("point"),
            "A point's IR at output_sample_rate as `ardent auralize` renders it there: the "
            "stored row resampled and, in a full-band grid, joined to the geometric part")
        .def(
            "nearest",
            [](const IrGrid& g, const py::handle& p) -> py::object {
                const auto k = g.nearest(to_point(p, "point"));
                return k ? py::object(py::int_(*k)) : py::object(py::none());
            },
            py::arg("point"), "The nearest point within one spacing of (x, y, z), or None")
        .def("__repr__", [](const IrGrid& g) {
            return "<ardent.Grid of source " + py::repr(py::str(g.source())).cast<std::string>() +
                   ": " + std::to_string(g.size()) + " points, " + std::to_string(g.samples()) +
                   " samples at " + std::to_string(static_cast<long>(g.sample_rate())) + " Hz>";
        });
}

}  // namespace ardent::python
