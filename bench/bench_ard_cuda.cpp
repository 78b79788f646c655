// ARD on one CUDA GPU: solve time per simulated second, cell-steps per second, GPU memory, and
// per stage the time per step and the achieved bandwidth as a fraction of the measured
// device-to-device copy bandwidth (metrics defined in bench/README.md).
// Usage: bench_ard_cuda [SCENE.json] [--max-frequency HZ] [--scale S] [--steps N] [--float64]
//   [--partition-sides smooth|power_of_two]  (default: the scene's)
//   [--distributed] [--concurrent S] [--grid-every N] [--courant C]
//   --scale multiplies the scene's geometry (the paper's benchmark needs ~7000-7500 m^3 of air).
//   --distributed, under mpirun (one rank per GPU): the partitions spread over the ranks as in
//   `ardent simulate --distributed`; every rank prints its own line (its cells, halo and stages,
//   the halo exchanges among them; with ARDENT_HALO=host the stages leave the exchanges out, so
//   each shows its own work alone).
//   --grid-every N: record the listener grid every N cells, as `ardent simulate` does (default:
//   none, the solver alone).
//   --courant C: ARD's c dt / h instead of kArdCourant (docs/ard.md, "Time step").
//   --concurrent S: also S solvers of the scene's sources (cycled), each advanced by its own host
//   thread on its own stream, all at once: the throughput per source against one solver alone.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/distributed/mpi.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/ard_cuda.h"
#include "ardent/solvers/solver.h"
#include "scene_scale.h"

int main(int argc, char** argv) {
    std::string scene_file = std::string(ARDENT_SOURCE_DIR) + "/data/scenes/shoebox.json";
    double f_max = 0, scale = 1, courant = 0;
    std::string sides;  // the scene's partition_sides unless given
    size_t steps = 1000;
    bool f64 = false, distributed = false;
    int concurrent = 0, grid_every = 0;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-frequency") && i + 1 < argc) {
            f_max = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--scale") && i + 1 < argc) {
            scale = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--partition-sides") && i + 1 < argc) {
            sides = argv[++i];
        } else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) {
            steps = static_cast<size_t>(std::atol(argv[++i]));
        } else if (!std::strcmp(argv[i], "--float64")) {
            f64 = true;
        } else if (!std::strcmp(argv[i], "--grid-every") && i + 1 < argc) {
            grid_every = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--concurrent") && i + 1 < argc) {
            concurrent = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--courant") && i + 1 < argc) {
            courant = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--distributed")) {
            distributed = true;
        } else {
            scene_file = argv[i];
        }
    }
    std::unique_ptr<ardent::Communicator> comm;
    try {
        if (distributed) comm = ardent::distributed::mpi_world();
        ardent::Scene scene = ardent::load_scene(scene_file);
        if (f_max > 0) scene.simulation.max_frequency = f_max;
        if (!sides.empty()) scene.simulation.partition_sides = sides;
        scene.listener_grid_every = grid_every;  // none: the solver, not a grid's recording
        ardent::bench::scale_scene(scene, scale);
        const auto t0 = std::chrono::steady_clock::now();
        const ardent::Preprocessed p = ardent::preprocess(scene);
        const auto tp = std::chrono::steady_clock::now();
        ardent::SolverOptions o;
        o.listener_grid = grid_every > 0;
        o.ard_courant = courant;
        o.precision = f64 ? ardent::Precision::Float64 : ardent::Precision::Float32;
        if (comm) {
            o.comm = comm.get();
            o.gpu = ardent::distributed::local_rank();
        }
        auto solver = ardent::ard::make_cuda_solver(p, o);
        const auto t1 = std::chrono::steady_clock::now();
        const double copy_bw = ardent::ard::measure_copy_bandwidth();
        const auto tw = std::chrono::steady_clock::now();
        // Warm-up: each of the two steps' graphs captured in its first step, then a few more.
        solver->expect_steps(20 + steps);  // as `ardent simulate` does
        // advance() returns while the GPU still runs its last steps: each timer stops after
        // wait() (until session 30 it did not: 2000 steps read 0.8-1.0 % fast, 200 steps 3.4 %).
        solver->advance(1);
        solver->wait();
        const auto tf = std::chrono::steady_clock::now();
        solver->advance(1);
        solver->wait();
        const auto ts = std::chrono::steady_clock::now();
        solver->advance(18);
        solver->wait();
        const auto t2 = std::chrono::steady_clock::now();
        solver->advance(steps);
        solver->wait();
        const auto t3 = std::chrono::steady_clock::now();
        const auto stages = ardent::ard::profile_cuda_stages(*solver, std::min<size_t>(steps, 200));
        const double run = std::chrono::duration<double>(t3 - t2).count();
        const double air = static_cast<double>(p.air.air_cells);
        const double pml = static_cast<double>(p.decomposition.pml_cells());
        const double steps_per_s = static_cast<double>(steps) / run;
        nlohmann::ordered_json out;
        out["scene"] = scene.name;
        if (comm) {
            const auto part = solver->rank_part();
            out["rank"] = comm->rank();
            out["ranks"] = comm->size();
            out["exchange"] = part.exchange;
            out["rank_partitions"] = part.partitions;
            out["rank_cells"] = part.cells;
            out["rank_halo_cells"] = part.halo_cells;
        }
        out["scale"] = scale;
        out["air_volume_m3"] = air * p.air.grid.h * p.air.grid.h * p.air.grid.h;
        out["solver"] = solver->name();
        out["max_frequency"] = scene.simulation.max_frequency;
        out["air_cells"] = p.air.air_cells;
        out["pml_cells"] = p.decomposition.pml_cells();
        out["partition_sides"] = scene.simulation.partition_sides;
        out["partitions"] = p.decomposition.partitions.size();
        out["thinnest_partition"] = p.decomposition.thinnest_partition();
        out["interfaces"] = p.decomposition.interfaces.size();
        out["dt"] = solver->dt();
        out["steps"] = steps;
        out["setup_s"] = std::chrono::duration<double>(t1 - t0).count();
        out["solver_setup_s"] = std::chrono::duration<double>(t1 - tp).count();
        nlohmann::ordered_json phases = nlohmann::ordered_json::object();
        for (const auto& ph : ardent::ard::cuda_setup_phases(*solver))
            phases[ph.name] = ph.seconds;
        out["solver_setup_phases_s"] = phases;
        out["warm_up_s"] = std::chrono::duration<double>(t2 - tw).count();
        out["first_steps_s"] = {std::chrono::duration<double>(tf - tw).count(),
                                std::chrono::duration<double>(ts - tf).count()};
        out["grid_points"] = solver->grid_positions().size();
        out["steps_per_s"] = steps_per_s;
        out["air_cell_steps_per_s"] = air * steps_per_s;
        out["all_cell_steps_per_s"] = (air + pml) * steps_per_s;
        out["seconds_per_simulated_second"] = 1.0 / (solver->dt() * steps_per_s);
        out["gpu_memory_bytes"] = solver->memory_bytes();
        out["copy_bandwidth_bytes_per_s"] = copy_bw;
        double total = 0;
        for (const auto& s : stages)
            total += s.seconds_per_step;
        nlohmann::ordered_json st = nlohmann::ordered_json::array();
        for (const auto& s : stages) {
            const double bw = s.seconds_per_step > 0 ? s.bytes_per_step / s.seconds_per_step : 0;
            st.push_back({{"stage", s.name},
                          {"ms_per_step", s.seconds_per_step * 1e3},
                          {"share", total > 0 ? s.seconds_per_step / total : 0},
                          {"bytes_per_step", s.bytes_per_step},
                          {"fraction_of_copy_bandwidth", bw / copy_bw}});
        }
        out["profiled_ms_per_step"] = total * 1e3;
        out["stages"] = st;
        if (concurrent > 0 && !comm) {
            // One solver per source (the scene's sources cycled), warmed up one after another,
            // then all advanced at once: kernels of different streams share the GPU.
            std::vector<std::unique_ptr<ardent::Solver>> solvers;
            for (int k = 0; k < concurrent; ++k) {
                o.source = static_cast<size_t>(k) % p.air.sources.size();
                solvers.push_back(ardent::ard::make_cuda_solver(p, o));
                solvers.back()->expect_steps(20 + steps);
                solvers.back()->advance(20);
                solvers.back()->wait();
            }
            const auto c0 = std::chrono::steady_clock::now();
            std::vector<std::thread> threads;
            for (auto& sv : solvers)
                threads.emplace_back([&sv, steps] {
                    sv->advance(steps);
                    sv->wait();
                });
            for (auto& t : threads)
                t.join();
            const double took =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
            const double per_source = static_cast<double>(steps) * concurrent / took;
            out["concurrent"] = {{"solvers", concurrent},
                                 {"seconds", took},
                                 {"source_steps_per_s", per_source},
                                 {"throughput_vs_one", per_source / steps_per_s}};
        }
        // Ranks print one line each, so that their outputs do not interleave.
        std::printf("%s\n", out.dump(comm ? -1 : 2).c_str());
        std::fflush(stdout);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_ard_cuda: %s\n", e.what());
        if (comm) ardent::distributed::abort_all(2);
        return 2;
    }
}
