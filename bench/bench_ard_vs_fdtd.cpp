// ARD vs FDTD on the CPU at equal accuracy (spec section 7): both solvers compute the IRs of the
// L-shaped room (data/scenes/lshape.json) between the same points (the scene's source and
// receivers moved onto cell centres both grids share), FDTD at 10 points per wavelength and ARD at
// 3.33 (the grids of the validation test, both representing the room exactly) and at its default
// 2.6; reports the time-stepping seconds of each, their ratio, and the third-octave level
// differences below 0.8 f_max per receiver (the accuracy comparison of test_fdtd_validation).
// Usage: bench_ard_vs_fdtd [--ard-cells-per-metre K] [--duration S] [--threads T] [--materials]
//   f_max = 343 * 3 K / 10 Hz (K = 5: 514.5 Hz). --materials keeps the scene's absorption
//   (rigid otherwise: the two solvers' boundary models differ away from normal incidence).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/filter_bank.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/solver.h"

namespace {

constexpr double kSpeed = 343.0;

struct Run {
    std::string name;
    size_t air_cells = 0, steps = 0;
    double dt = 0, setup_s = 0, run_s = 0;
    std::vector<std::vector<double>> receivers;
};

double common_centre(double x, int cells_per_metre) {
    const double h = 1.0 / cells_per_metre;
    return (std::floor(x / h) + 0.5) * h;
}

Run run(int k, double duration, double ppw, bool fdtd, bool materials, int threads) {
    ardent::Scene scene =
        ardent::load_scene(std::string(ARDENT_SOURCE_DIR) + "/data/scenes/lshape.json");
    scene.listener_grid_every = 0;
    scene.simulation.device = "cpu";
    scene.simulation.speed_of_sound = kSpeed;
    scene.simulation.max_frequency = kSpeed * 3 * k / 10.0;
    scene.simulation.duration = duration;
    scene.simulation.solver = fdtd ? "fdtd" : "ard";
    scene.simulation.points_per_wavelength = ppw;
    if (!materials)
        for (ardent::Material& m : scene.materials)
            m.set_uniform(0.0);
    for (auto* list : {&scene.sources, &scene.receivers})
        for (ardent::Emitter& e : *list)
            e.position = {common_centre(e.position.x, k), common_centre(e.position.y, k),
                          common_centre(e.position.z, k)};
    const auto t0 = std::chrono::steady_clock::now();
    ardent::PreprocessOptions po;
    po.decompose = !fdtd;
    const ardent::Preprocessed p = ardent::preprocess(scene, po);
    ardent::SolverOptions o;
    o.threads = threads;
    o.listener_grid = false;
    auto solver = ardent::make_solver(p, o);
    const auto t1 = std::chrono::steady_clock::now();
    Run r;
    r.steps = static_cast<size_t>(std::ceil(duration / solver->dt()));
    solver->advance(r.steps);
    solver->wait();  // a GPU backend returns from advance() before its last steps have run
    const auto t2 = std::chrono::steady_clock::now();
    r.name = solver->name();
    r.air_cells = p.air.air_cells;
    r.dt = solver->dt();
    r.setup_s = std::chrono::duration<double>(t1 - t0).count();
    r.run_s = std::chrono::duration<double>(t2 - t1).count();
    r.receivers = solver->receivers();
    return r;
}

// Third-octave band energies made rate-independent (sum y^2 / dt; see fdtd_validation.h).
std::vector<double> bands(const std::vector<double>& ir, double dt, double f_top,
                          std::vector<double>& centres) {
    const std::vector<float> x(ir.begin(), ir.end());
    std::vector<double> e;
    centres.clear();
    for (const auto& band : ardent::auralize::filter_bank(ardent::auralize::Bands::Third, 1 / dt)) {
        if (band.upper_hz > f_top) continue;
        double sum = 0;
        for (double v :
             ardent::auralize::band_signal(band, x, ardent::auralize::Direction::Forward))
            sum += v * v;
        e.push_back(sum * band.sample_rate);
        centres.push_back(band.nominal_hz);
    }
    return e;
}

nlohmann::ordered_json run_json(const Run& r) {
    return {{"solver", r.name},
            {"air_cells", r.air_cells},
            {"steps", r.steps},
            {"dt", r.dt},
            {"setup_s", r.setup_s},
            {"run_s", r.run_s},
            {"air_cell_steps_per_s", static_cast<double>(r.air_cells * r.steps) / r.run_s}};
}

}  // namespace

int main(int argc, char** argv) {
    int k = 5, threads = 2;
    double duration = 0.5;
    bool materials = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--ard-cells-per-metre") && i + 1 < argc) {
            k = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--duration") && i + 1 < argc) {
            duration = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--materials")) {
            materials = true;
        } else {
            std::fprintf(stderr, "bench_ard_vs_fdtd: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    try {
        const double f_max = kSpeed * 3 * k / 10.0;
        const Run fdtd = run(k, duration, 10.0, true, materials, threads);
        const Run ard = run(k, duration, 10.0 / 3.0, false, materials, threads);
        const Run ard26 = run(k, duration, 2.6, false, materials, threads);
        nlohmann::ordered_json out;
        out["scene"] = "L-shaped room";
        out["surfaces"] = materials ? "scene materials" : "rigid";
        out["max_frequency"] = f_max;
        out["duration_s"] = duration;
        out["threads"] = threads;
        out["fdtd_10ppw"] = run_json(fdtd);
        out["ard_3.33ppw"] = run_json(ard);
        out["ard_2.6ppw"] = run_json(ard26);
        out["fdtd_s_over_ard_3.33ppw_s"] = fdtd.run_s / ard.run_s;
        out["fdtd_s_over_ard_2.6ppw_s"] = fdtd.run_s / ard26.run_s;
        nlohmann::ordered_json levels = nlohmann::ordered_json::array();
        double worst = 0;
        for (size_t r = 0; r < fdtd.receivers.size(); ++r) {
            std::vector<double> cf, ca;
            const auto ef = bands(fdtd.receivers[r], fdtd.dt, 0.8 * f_max, cf);
            const auto ea = bands(ard.receivers[r], ard.dt, 0.8 * f_max, ca);
            nlohmann::ordered_json per;
            for (size_t b = 0; b < ef.size() && b < ea.size(); ++b) {
                const double d = 10 * std::log10(ef[b] / ea[b]);
                worst = std::max(worst, std::abs(d));
                per[std::to_string(static_cast<int>(cf[b])) + " Hz"] = std::round(d * 100) / 100;
            }
            levels.push_back(per);
        }
        out["third_octave_fdtd_minus_ard_3.33ppw_db"] = levels;
        out["worst_abs_difference_db"] = worst;
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_ard_vs_fdtd: %s\n", e.what());
        return 2;
    }
}
