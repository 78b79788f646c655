// FDTD on one CUDA GPU: López et al.'s benchmark (a rigid cube of 512^3 grid cells, 800 steps,
// started from a Gaussian pulse) or a scene. Reports cell updates per second (Gvox/s) and their
// fraction of the device's measured copy bandwidth divided by 12 bytes per cell (float32: read the
// field and the old level, write the new; 24 bytes in float64), the spec's target being 60 %; per
// kernel, time per step and achieved bandwidth (metrics defined in bench/README.md).
// Usage: bench_fdtd_cuda [SCENE.json] [--box N] [--max-frequency HZ] [--steps N] [--float64]
//                       [--absorption JSON]  (the box's walls, e.g. per band; default rigid)
//   Without a scene the box is López's: --box 512, --steps 800.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/ard_cuda.h"
#include "ardent/solvers/fdtd_cuda.h"
#include "ardent/solvers/solver.h"
#include "fdtd_box.h"

int main(int argc, char** argv) {
    std::string scene_file;
    double f_max = 0;
    int box = 512;
    size_t steps = 800;
    bool f64 = false;
    std::string absorption = "0";
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-frequency") && i + 1 < argc) {
            f_max = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--box") && i + 1 < argc) {
            box = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) {
            steps = static_cast<size_t>(std::atol(argv[++i]));
        } else if (!std::strcmp(argv[i], "--absorption") && i + 1 < argc) {
            absorption = argv[++i];
        } else if (!std::strcmp(argv[i], "--float64")) {
            f64 = true;
        } else {
            scene_file = argv[i];
        }
    }
    try {
        std::string why;
        if (!ardent::ard::cuda_available(&why)) {
            std::fprintf(stderr, "bench_fdtd_cuda: %s\n", why.c_str());
            return 3;
        }
        const bool lopez = scene_file.empty();
        const auto t0 = std::chrono::steady_clock::now();
        const ardent::Preprocessed p = [&] {
            if (lopez) return ardent::bench::lopez_box(box, f_max > 0 ? f_max : 1000, absorption);
            ardent::Scene scene = ardent::load_scene(scene_file);
            if (f_max > 0) scene.simulation.max_frequency = f_max;
            scene.listener_grid_every = 0;  // measure the solver, not the recording of a grid
            scene.simulation.solver = "fdtd";
            scene.simulation.points_per_wavelength.reset();  // FDTD's default, 10
            ardent::PreprocessOptions o;
            o.decompose = false;
            return ardent::preprocess(scene, o);
        }();
        const auto t1 = std::chrono::steady_clock::now();
        ardent::SolverOptions o;
        o.precision = f64 ? ardent::Precision::Float64 : ardent::Precision::Float32;
        o.inject_source = !lopez;
        auto solver = ardent::fdtd::make_cuda_solver(p, o);
        if (lopez) ardent::bench::gaussian_pulse(*solver, p);
        const auto t2 = std::chrono::steady_clock::now();
        const double copy_bw = ardent::ard::measure_copy_bandwidth();
        solver->advance(20);  // warm-up: graph capture, first touches
        solver->wait();
        const auto t3 = std::chrono::steady_clock::now();
        solver->advance(steps);
        solver->wait();  // advance() may return before the GPU has run its last steps
        const auto t4 = std::chrono::steady_clock::now();
        const double energy = solver->field_energy();
        const auto prof = ardent::fdtd::profile_cuda(*solver, std::min<size_t>(steps, 200));
        const double run = std::chrono::duration<double>(t4 - t3).count();
        const double air = static_cast<double>(p.air.air_cells);
        const double grid = static_cast<double>(p.air.grid.count());
        const double steps_per_s = static_cast<double>(steps) / run;
        const double bytes_per_cell = 3.0 * (f64 ? 8 : 4);
        const double roofline = copy_bw / bytes_per_cell;  // cells/s at the copy bandwidth
        nlohmann::ordered_json out;
        out["scene"] = p.scene.name;
        out["solver"] = solver->name();
        out["grid"] = {p.air.grid.dims[0], p.air.grid.dims[1], p.air.grid.dims[2]};
        out["air_cells"] = p.air.air_cells;
        out["grid_cells"] = p.air.grid.count();
        out["interior_cells"] = prof.interior_cells;
        out["swept_cells"] = prof.swept_cells;
        out["boundary_cells"] = prof.boundary_cells;
        out["dt"] = solver->dt();
        out["steps"] = steps;
        out["preprocess_s"] = std::chrono::duration<double>(t1 - t0).count();
        out["solver_setup_s"] = std::chrono::duration<double>(t2 - t1).count();
        out["run_s"] = run;
        out["steps_per_s"] = steps_per_s;
        out["air_gvox_per_s"] = air * steps_per_s / 1e9;
        out["grid_gvox_per_s"] = grid * steps_per_s / 1e9;
        out["copy_bandwidth_gb_per_s"] = copy_bw / 1e9;
        out["bytes_per_cell"] = bytes_per_cell;
        out["roofline_gvox_per_s"] = roofline / 1e9;
        out["fraction_of_roofline"] = air * steps_per_s / roofline;
        out["seconds_per_simulated_second"] = 1.0 / (solver->dt() * steps_per_s);
        out["gpu_memory_bytes"] = solver->memory_bytes();
        out["final_energy"] = energy;
        nlohmann::ordered_json stages = nlohmann::ordered_json::array();
        double total = 0;
        for (const auto& s : prof.stages)
            total += s.seconds_per_step;
        for (const auto& s : prof.stages)
            stages.push_back(
                {{"stage", s.name},
                 {"ms_per_step", 1e3 * s.seconds_per_step},
                 {"share", s.seconds_per_step / total},
                 {"least_bytes_per_step", s.bytes_per_step},
                 {"fraction_of_copy_bandwidth",
                  s.seconds_per_step > 0 ? s.bytes_per_step / s.seconds_per_step / copy_bw : 0.0}});
        out["stages_without_graph"] = stages;
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_fdtd_cuda: %s\n", e.what());
        return 2;
    }
}
