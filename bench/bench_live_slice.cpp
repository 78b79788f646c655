// What a live pressure slice costs the solver (spec section 9: the editor's live view must not
// slow the run by more than 10 %). Part 1 runs pipeline::simulate() on a scene in one process
// four times, without slices, with a slice every --every seconds of wall time, again with and
// again without (ABBA, so that a drift of the machine's speed cancels), and compares the wall
// time of the solver loops; --rounds repeats that (the median round's ratio resists a machine
// that others share). Part 2 times Solver::pressure_plane() itself on a larger grid of
// the same scene (about a million cells, ARD and FDTD on the CPU): the first call per plane
// (building its cell map) and the calls after it. Prints JSON (metrics in bench/README.md).
// Usage: bench_live_slice [SCENE.json] [--max-frequency HZ] [--duration S] [--every S]
//                         [--threads T] [--rounds N] [--plane-max-frequency HZ]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ardent/pipeline/simulate.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/solver.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

// Times the solver loop (source_begin to source_end) and, when slicing, asks for a slice once
// `every` seconds have passed since the last one, as the editor's throttle does. It copies each
// slice, as a GUI handing it to its own thread would.
class Timing final : public ardent::pipeline::SimulateObserver {
  public:
    Timing(bool slices, double every) : slices_(slices), every_(every) {}
    void source_begin(const std::string&, size_t, size_t, size_t, size_t) override {
        begin_ = last_ = Clock::now();
    }
    void source_end() override { solve_s += seconds(Clock::now() - begin_); }
    bool want_slice() override {
        if (!slices_) return false;
        const auto t = Clock::now();
        if (seconds(t - last_) < every_) return false;
        last_ = asked_ = t;
        return true;
    }
    void slice(const ardent::pipeline::PressureSlice& s) override {
        copy_ = s.values;
        gather_s += seconds(Clock::now() - asked_);
        ++count;
        cells = s.values.size();
    }
    double solve_s = 0, gather_s = 0;
    size_t count = 0, cells = 0;

  private:
    bool slices_;
    double every_;
    Clock::time_point begin_, last_, asked_;
    std::vector<float> copy_;
};

Timing run_once(const ardent::Scene& scene, int threads, bool slices, double every,
                const std::filesystem::path& out) {
    ardent::pipeline::SimulateSettings settings;
    settings.output = out;
    settings.threads = threads;
    Timing t(slices, every);
    ardent::pipeline::simulate(scene, settings, t);
    std::filesystem::remove_all(out);
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    std::string scene_file = std::string(ARDENT_SOURCE_DIR) + "/data/scenes/lshape.json";
    double f_max = 1000, duration = 0.2, every = 0.2, plane_f_max = 2900;
    int threads = 0, rounds = 3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-frequency") && i + 1 < argc) {
            f_max = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--duration") && i + 1 < argc) {
            duration = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--every") && i + 1 < argc) {
            every = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = std::max(1, std::atoi(argv[++i]));
        } else if (!std::strcmp(argv[i], "--plane-max-frequency") && i + 1 < argc) {
            plane_f_max = std::atof(argv[++i]);
        } else {
            scene_file = argv[i];
        }
    }
    try {
        ardent::Scene scene = ardent::load_scene(scene_file);
        scene.simulation.max_frequency = f_max;
        scene.simulation.duration = duration;
        scene.simulation.device = "cpu";  // "auto" would pick a GPU where one is present
        scene.listener_grid_every = 0;    // the writing stage is not timed; keep it short
        const std::filesystem::path out = std::filesystem::temp_directory_path() /
                                          ("ardent-bench-slice-" + std::to_string(getpid()));

        // Part 1: the solver loop without and with slices, ABBA.
        run_once(scene, threads, false, every, out);  // warm-up: FFTW wisdom, first touches
        double plain_s = 0, sliced_s = 0, gather_s = 0;
        size_t slices = 0, cells = 0;
        std::vector<double> round_ratios;
        for (int round = 0; round < rounds; ++round) {
            double a = 0, b = 0;
            for (const bool with : {false, true, true, false}) {
                const Timing t = run_once(scene, threads, with, every, out);
                std::fprintf(stderr, "round %d, %s slices: solver loop %.3f s (%zu slices)\n",
                             round + 1, with ? "with" : "without", t.solve_s, t.count);
                (with ? b : a) += t.solve_s;
                gather_s += t.gather_s;
                slices += t.count;
                cells = std::max(cells, t.cells);
            }
            plain_s += a;
            sliced_s += b;
            round_ratios.push_back(b / a);
        }
        std::vector<double> sorted = round_ratios;
        std::sort(sorted.begin(), sorted.end());
        const double median =
            sorted.size() % 2 ? sorted[sorted.size() / 2]
                              : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);

        // Part 2: pressure_plane() on grids of about a million cells, ARD and FDTD (whose 10
        // points per wavelength give the same grid at 2.6 / 10 of the frequency).
        nlohmann::ordered_json plane_cost = nlohmann::ordered_json::array();
        for (const std::string kind : {"ard", "fdtd"}) {
            ardent::Scene big = scene;
            big.simulation.solver = kind;
            big.simulation.max_frequency = kind == "ard" ? plane_f_max : plane_f_max * 2.6 / 10;
            const ardent::Preprocessed p = ardent::preprocess(big);
            ardent::SolverOptions o;
            o.threads = threads;
            o.listener_grid = false;
            auto solver = ardent::make_solver(p, o);
            auto ts = Clock::now();
            solver->advance(5);
            const double step_ms = seconds(Clock::now() - ts) / 5 * 1e3;
            nlohmann::ordered_json planes = nlohmann::ordered_json::array();
            std::vector<float> plane;
            const ardent::Index3 src = p.air.sources[0].cell;
            for (int axis = 0; axis < 3; ++axis) {
                const int index = src[static_cast<size_t>(axis)];
                auto t0 = Clock::now();
                solver->pressure_plane(axis, index, plane);
                const double first = seconds(Clock::now() - t0);
                const int reps = 50;
                t0 = Clock::now();
                for (int r = 0; r < reps; ++r)
                    solver->pressure_plane(axis, index, plane);
                const double again = seconds(Clock::now() - t0) / reps;
                planes.push_back({{"axis", axis},
                                  {"cells", plane.size()},
                                  {"first_call_ms", first * 1e3},
                                  {"call_ms", again * 1e3}});
            }
            plane_cost.push_back({{"solver", solver->name()},
                                  {"max_frequency", big.simulation.max_frequency},
                                  {"grid_cells", p.air.grid.count()},
                                  {"air_cells", p.air.air_cells},
                                  {"step_ms", step_ms},
                                  {"planes", planes}});
        }

        const nlohmann::ordered_json j = {
            {"scene", scene.display_name()},
            {"max_frequency", f_max},
            {"duration", duration},
            {"slice_every_s", every},
            {"solver_loop_without_slices_s", plain_s},
            {"solver_loop_with_slices_s", sliced_s},
            {"ratio", sliced_s / plain_s},
            {"round_ratios", round_ratios},
            {"median_round_ratio", median},
            {"slices", slices},
            {"slice_cells", cells},
            {"mean_slice_ms", slices ? gather_s / static_cast<double>(slices) * 1e3 : 0.0},
            {"plane_cost", plane_cost},
        };
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_live_slice: %s\n", e.what());
        return 1;
    }
}
