#include "scene_estimate.h"

#include <QtConcurrent/QtConcurrent>
#include <cmath>
#include <cstdio>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/solvers/ard_cuda.h"
#include "ardent/solvers/solver.h"

namespace ardent::editor {

std::string describe_seconds(double s) {
    char buf[64];
    if (s < 1)
        std::snprintf(buf, sizeof buf, "under a second");
    else if (s < 120)
        std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 7200)
        std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
    else
        std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
    return buf;
}

namespace {

// A scene imported from a model has no file until it is saved, and the libraries name it
// "<memory>" in their messages (Python's errors rely on that name): meaningless to the user here.
std::string for_the_user(std::string message) {
    const std::string tag = "<memory>";
    if (message.rfind(tag, 0) == 0) message.replace(0, tag.size(), "the unsaved scene");
    return message;
}

SceneEstimate estimate(const Scene& scene);

}  // namespace

SceneEstimate estimate_scene(const Scene& scene) {
    SceneEstimate out = estimate(scene);
    out.error = for_the_user(std::move(out.error));
    out.warning = for_the_user(std::move(out.warning));
    return out;
}

namespace {

SceneEstimate estimate(const Scene& scene) {
    SceneEstimate out;
    // The air is the space around the first source, so there is nothing to estimate before one is
    // placed (preprocess() says so too, in the scene file's terms).
    if (scene.sources.empty()) {
        out.error =
            "the scene has no source yet: place one with Add source (Sources and receivers)";
        return out;
    }
    try {
        const Preprocessed p = preprocess(scene);
        const ResourceEstimate e = p.estimate();
        const bool fdtd = scene.simulation.solver == "fdtd";
        std::string why;
        const bool gpu = ard::cuda_available(&why);
        const std::string& dev = scene.simulation.device;
        out.device = dev == "cuda" || (dev == "auto" && gpu) ? "cuda" : "cpu";
        if (dev == "cuda" && !gpu) out.warning = "--device cuda: " + why;
        out.cell_size = p.air.grid.h;
        out.grid_cells = p.air.grid.count();
        out.air_cells = p.air.air_cells;
        out.partitions = p.decomposition.partitions.size();
        out.listener_points = scene.listener_grid_cells() > 0 ? p.listener_points() : 0;
        const bool cuda = out.device == "cuda";
        out.memory_bytes = fdtd ? e.memory_fdtd : (cuda ? e.memory_ard_gpu : e.memory_ard_cpu);
        const double sps = fdtd ? (cuda ? e.sps_fdtd_gpu : e.sps_fdtd_cpu)
                                : (cuda ? e.sps_ard_gpu : e.sps_ard_cpu);
        out.seconds = sps * scene.simulation.duration * static_cast<double>(scene.sources.size());
        if (out.warning.empty()) {
            try {
                SolverOptions o;
                o.listener_grid = scene.listener_grid_cells() > 0;
                check_memory(p, o);
            } catch (const ResourceError& err) {
                out.warning = err.what();
            }
        }
        const Grid& g = p.air.grid;
        out.partition_boxes.reserve(p.decomposition.partitions.size());
        for (const Partition& part : p.decomposition.partitions) {
            Box3 b;
            for (int a = 0; a < 3; ++a) {
                const size_t ai = static_cast<size_t>(a);
                b.lo[a] = g.origin[a] + part.origin[ai] * g.h;
                b.hi[a] = g.origin[a] + (part.origin[ai] + part.size[ai]) * g.h;
            }
            out.partition_boxes.push_back(b);
        }
        out.ok = true;
    } catch (const InputError& e) {
        out.error = e.what();
    } catch (const ResourceError& e) {
        out.error = e.what();
    } catch (const std::bad_alloc&) {
        out.error = "out of memory while preprocessing";
    } catch (const std::exception& e) {
        // Anything else would reach the GUI thread through the future and end the editor.
        out.error = std::string("internal error: ") + e.what();
    }
    return out;
}

}  // namespace

SceneEstimator::SceneEstimator(QObject* parent) : QObject(parent) {
    timer_.setSingleShot(true);
    timer_.setInterval(300);
    connect(&timer_, &QTimer::timeout, this, &SceneEstimator::start);
    connect(&watcher_, &QFutureWatcher<SceneEstimate>::finished, this, [this] {
        emit estimated(watcher_.result());
        if (pending_) start();
    });
}

SceneEstimator::~SceneEstimator() {
    watcher_.waitForFinished();
}

void SceneEstimator::request(const Scene& scene) {
    next_ = scene;
    pending_ = true;
    timer_.start();
}

void SceneEstimator::start() {
    if (watcher_.isRunning()) return;  // picked up when the running one finishes
    pending_ = false;
    watcher_.setFuture(QtConcurrent::run([s = next_] { return estimate_scene(s); }));
}

}  // namespace ardent::editor
