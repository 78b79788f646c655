// FDTD on the CPU: cell updates per second (Gvox/s) for a scene, or for López et al.'s benchmark
// shape (a rigid cube of n^3 grid cells started from a Gaussian pulse; the paper's is 512^3 for
// 800 steps), plus seconds of compute per simulated second and the memory traffic it implies
// (metrics defined in bench/README.md).
// Usage: bench_fdtd_cpu [SCENE.json] [--max-frequency HZ] [--box N] [--steps N] [--threads T]
//        [--float64]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/solver.h"
#include "fdtd_box.h"

int main(int argc, char** argv) {
    std::string scene_file = std::string(ARDENT_SOURCE_DIR) + "/data/scenes/shoebox.json";
    double f_max = 0;
    int box = 0;
    size_t steps = 200;
    int threads = 0;
    bool f64 = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-frequency") && i + 1 < argc) {
            f_max = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--box") && i + 1 < argc) {
            box = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) {
            steps = static_cast<size_t>(std::atol(argv[++i]));
        } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--float64")) {
            f64 = true;
        } else {
            scene_file = argv[i];
        }
    }
    try {
        const auto t0 = std::chrono::steady_clock::now();
        const ardent::Preprocessed p = [&] {
            if (box > 0) return ardent::bench::lopez_box(box, f_max > 0 ? f_max : 1000);
            ardent::Scene scene = ardent::load_scene(scene_file);
            if (f_max > 0) scene.simulation.max_frequency = f_max;
            scene.listener_grid_every = 0;  // measure the solver, not the recording of a grid
            scene.simulation.solver = "fdtd";
            scene.simulation.points_per_wavelength.reset();  // FDTD's default, 10
            scene.simulation.device = "cpu";  // "auto" would pick a GPU where one is present
            return ardent::preprocess(scene);
        }();
        ardent::SolverOptions o;
        o.threads = threads;
        o.precision = f64 ? ardent::Precision::Float64 : ardent::Precision::Float32;
        o.inject_source = box == 0;
        auto solver = ardent::make_solver(p, o);
        if (box > 0) ardent::bench::gaussian_pulse(*solver, p);
        const auto t1 = std::chrono::steady_clock::now();
        solver->advance(10);  // warm-up: first touches of memory
        const auto t2 = std::chrono::steady_clock::now();
        solver->advance(steps);
        const auto t3 = std::chrono::steady_clock::now();
        const double run = std::chrono::duration<double>(t3 - t2).count();
        const double air = static_cast<double>(p.air.air_cells);
        const double grid = static_cast<double>(p.air.grid.count());
        const double steps_per_s = static_cast<double>(steps) / run;
        const double bytes_per_cell = 3.0 * (f64 ? 8 : 4);  // read p and the old level, write new
        nlohmann::ordered_json out;
        out["scene"] = p.scene.name;
        out["solver"] = solver->name();
        out["max_frequency"] = p.scene.simulation.max_frequency;
        out["threads"] = threads > 0 ? std::to_string(threads) : std::string("all");
        out["grid"] = {p.air.grid.dims[0], p.air.grid.dims[1], p.air.grid.dims[2]};
        out["air_cells"] = p.air.air_cells;
        out["grid_cells"] = p.air.grid.count();
        out["dt"] = solver->dt();
        out["steps"] = steps;
        out["setup_s"] = std::chrono::duration<double>(t1 - t0).count();
        out["run_s"] = run;
        out["steps_per_s"] = steps_per_s;
        out["air_gvox_per_s"] = air * steps_per_s / 1e9;
        out["grid_gvox_per_s"] = grid * steps_per_s / 1e9;
        out["traffic_gb_per_s"] = air * steps_per_s * bytes_per_cell / 1e9;
        out["seconds_per_simulated_second"] = 1.0 / (solver->dt() * steps_per_s);
        out["solver_bytes_per_air_cell"] = static_cast<double>(solver->memory_bytes()) / air;
        out["final_energy"] = solver->field_energy();
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_fdtd_cpu: %s\n", e.what());
        return 2;
    }
}
