// ardent.info and the compiled half of ardent.simulate (docs/python.md): pipeline::simulate() run
// with the GIL released, its reports handed to a Python callable, Ctrl-C turned into the run's
// stop flag (then KeyboardInterrupt, nothing written), and its outcome as a dict that the
// package's Result reads on.
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "ardent/pipeline/simulate.h"
#include "ardent/pipeline/simulate_output.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/info.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/solvers/solver.h"
#include "bindings.h"
#include "hdf5_lock.h"
#include "scene_check.h"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace ardent::python {
namespace {

// The run's reports as calls of `report(kind, name, done, total)`: kind "stage" (name: the text),
// "warning" (name: the text), "solve" (name: the source; steps), "rays", "write" (IRs), each with
// done == total at its end. Every call comes from the thread that called simulate(), which is
// the one Python's signal handlers run in: each also checks for Ctrl-C.
class PythonObserver final : public pipeline::SimulateObserver {
  public:
    PythonObserver(py::object report, std::atomic<bool>& stop)
        : report_(std::move(report)), stop_(stop) {}

    // The exception that stopped the run from Python (KeyboardInterrupt, or one the callable
    // raised), to raise once simulate() has returned.
    std::exception_ptr error() const { return error_; }

    void stage(const std::string& text) override { send("stage", text, 0, 0); }
    void warning(const std::string& text) override { send("warning", text, 0, 0); }
    void source_begin(const std::string& name, size_t, size_t, size_t total_steps,
                      size_t steps_done) override {
        begin("solve", name, total_steps, steps_done);
    }
    void progress(size_t steps_done) override { update(steps_done); }
    void source_end() override { end(); }
    void geometric_begin(const std::string& source, size_t rays) override {
        begin("rays", source, rays, 0);
    }
    void geometric_progress(size_t rays_done) override { update(rays_done); }
    void geometric_end() override { end(); }
    void write_begin(const std::string& source, size_t irs) override {
        begin("write", source, irs, 0);
    }
    void write_progress(size_t irs_done) override { update(irs_done); }
    void write_end() override { end(); }

  private:
    void begin(const char* kind, const std::string& name, size_t total, size_t done) {
        kind_ = kind;
        name_ = name;
        total_ = total;
        send(kind_, name_, done, total_);
    }
    void update(size_t done) {
        if (done != last_) send(kind_, name_, done, total_);
    }
    void end() {
        if (last_ != total_) send(kind_, name_, total_, total_);
    }

    void send(const std::string& kind, const std::string& name, size_t done, size_t total) {
        last_ = done;
        py::gil_scoped_acquire gil;
        if (error_) return;
        try {
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            if (!report_.is_none()) report_(kind, name, done, total);
        } catch (const py::error_already_set&) {
            error_ = std::current_exception();
            stop_.store(true);
        }
    }

    py::object report_;
    std::atomic<bool>& stop_;
    std::exception_ptr error_;
    std::string kind_, name_;
    size_t total_ = 0, last_ = 0;
};

py::dict run_simulate(const Scene& scene_in, const fs::path& out_dir, bool force, bool resume,
                      const std::string& precision, int threads, size_t checkpoint_every,
                      const py::object& report) {
    if (precision != "float32" && precision != "float64")
        throw InputError("precision: expected \"float32\" or \"float64\", got \"" + precision +
                         "\"");
    if (threads < 0 || threads > 4096)
        throw InputError("threads: expected 0 (every core) to 4096, got " +
                         std::to_string(threads));
    Scene scene = checked(scene_in);
    pipeline::SimulateSettings settings;
    settings.output = out_dir;
    if (!settings.output.has_filename()) settings.output = settings.output.parent_path();
    settings.force = force;
    settings.resume = resume;
    settings.precision = precision == "float64" ? Precision::Float64 : Precision::Float32;
    settings.threads = threads;
    settings.checkpoint_every = checkpoint_every;

    std::atomic<bool> stop{false};
    PythonObserver observer(report, stop);
    pipeline::SimulateResult r;
    std::exception_ptr failure;
    const bool writes_grid = scene.listener_grid_cells() > 0;
    {
        py::gil_scoped_release release;
        // The grid files are HDF5's (hdf5_lock.h); a run without a grid waits for nobody.
        std::unique_lock<std::recursive_mutex> hdf5(hdf5_mutex(), std::defer_lock);
        if (writes_grid) hdf5.lock();
        try {
            r = pipeline::simulate(std::move(scene), settings, observer, &stop);
        } catch (...) {
            failure = std::current_exception();
        }
    }
    // Ctrl-C or the callable's own exception outranks the Cancelled it caused; a Ctrl-C that left
    // a checkpointed run's partial directory says so, as the command does.
    if (observer.error()) {
        try {
            std::rethrow_exception(observer.error());
        } catch (py::error_already_set& e) {
            if (e.matches(PyExc_KeyboardInterrupt) && failure) {
                try {
                    std::rethrow_exception(failure);
                } catch (const pipeline::Cancelled& c) {
                    if (!c.kept().empty()) {
                        PyErr_SetString(PyExc_KeyboardInterrupt, c.what());
                        throw py::error_already_set();
                    }
                } catch (...) {
                }
            }
            throw;
        }
    }
    if (failure) std::rethrow_exception(failure);
    py::dict d;
    d["directory"] = r.directory;
    d["ir_files"] = r.ir_files;
    d["grid_files"] = r.grid_files;
    d["seconds"] = r.seconds;
    d["band"] = r.band;
    return d;
}

py::object run_info(const Scene& scene_in) {
    Scene scene = checked(scene_in);
    nlohmann::ordered_json j;
    {
        py::gil_scoped_release release;
        j = info_json(preprocess(scene));
    }
    return to_python(j);
}

}  // namespace

void bind_simulate(py::module_& m) {
    m.def("_simulate", &run_simulate, py::arg("scene"), py::arg("out_dir"), py::arg("force"),
          py::arg("resume"), py::arg("precision"), py::arg("threads"), py::arg("checkpoint_every"),
          py::arg("report"), "The run behind ardent.simulate (use that)");
    m.def("_safe_name", &pipeline::safe_name, py::arg("name"),
          "A source or receiver name as the results' file names have it");
    m.def("info", &run_info, py::arg("scene"),
          "What `ardent info --json` prints for the scene: grid, cells, partitions, memory and "
          "time estimates (keys in docs/info.md)");
}

}  // namespace ardent::python
