// The write stage of `ardent simulate` alone (issue 21: outputs within 10 % of a run): one
// source's files written from signals the size a solver records (each receiver and its gradient
// cells, each listener-grid point and its neighbours; decaying noise at the ARD simulation rate),
// through the same code as simulate() (pipeline/src/source_files.h), wave band. Prints JSON: per
// round the whole write in seconds (the receivers' files and the grid's, written side by side) and
// the grid file's size.
// Usage: bench_write [SCENE.json] [--max-frequency HZ] [--duration S] [--threads T]
//                    [--every N] [--rounds R]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/pipeline/simulate_output.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/excitation.h"
#include "receiver_ambisonics.h"
#include "source_files.h"

namespace {

// n signals of decaying noise (T60 2 s), as a room's recorded pressure roughly is.
template <typename T>
std::vector<std::vector<T>> signals(size_t n, size_t samples, double dt, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0.0, 1e-3);
    std::vector<std::vector<T>> out(n, std::vector<T>(samples));
    for (auto& s : out)
        for (size_t k = 0; k < samples; ++k)
            s[k] = static_cast<T>(noise(rng) * std::exp(-6.9 * static_cast<double>(k) * dt / 2.0));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    std::string scene_file = std::string(ARDENT_SOURCE_DIR) + "/data/scenes/musikverein.json";
    double f_max = 0, duration = 0;
    int threads = 0, every = -1, rounds = 2;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-frequency") && i + 1 < argc)
            f_max = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--duration") && i + 1 < argc)
            duration = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--every") && i + 1 < argc)
            every = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = std::atoi(argv[++i]);
        else
            scene_file = argv[i];
    }
    try {
        ardent::Scene scene = ardent::load_scene(scene_file);
        if (f_max > 0) scene.simulation.max_frequency = f_max;
        if (duration > 0) scene.simulation.duration = duration;
        if (every >= 0) scene.listener_grid_every = every;
        scene.simulation.band = "wave";
        const ardent::Preprocessed p = ardent::preprocess(scene);
        const double dt = ardent::ard_time_step(p.air.grid.h, scene.simulation.speed_of_sound);
        const ardent::Excitation ex =
            ardent::Excitation::for_band(scene.simulation.max_frequency, dt);
        const size_t steps =
            ardent::pipeline::steps_needed(dt, ex.delay(), scene.simulation.duration);
        ardent::pipeline::SolvedSource solved;
        solved.dt = dt;
        solved.steps = steps;
        solved.receivers = signals<double>(p.receiver_cells().cells.size(), steps, dt, 1);
        if (scene.listener_grid_cells() > 0)
            solved.grid = signals<float>(p.listener_cells().cells.size(), steps, dt, 2);
        const fs::path dir =
            fs::temp_directory_path() / ("bench-write-" + std::to_string(getpid()));
        const ardent::pipeline::ReceiverAmbisonics foa(p);
        nlohmann::ordered_json out;
        out["scene"] = scene.name;
        out["max_frequency"] = scene.simulation.max_frequency;
        out["duration"] = scene.simulation.duration;
        out["steps"] = steps;
        out["receivers"] = p.air.receivers.size();
        out["grid_points"] = scene.listener_grid_cells() > 0 ? p.listener_points() : 0;
        out["rounds"] = nlohmann::ordered_json::array();
        for (int r = 0; r < rounds; ++r) {
            fs::remove_all(dir);
            for (const char* sub : {"ir", "ambix", "grid"})
                fs::create_directories(dir / sub);
            const ardent::pipeline::SourceFiles files{p,       nullptr, foa,    dir,
                                                      "bench", threads, nullptr};
            ardent::pipeline::SimulateObserver quiet;
            const auto w =
                ardent::pipeline::write_source_files(files, 0, solved, {}, nullptr, quiet);
            uintmax_t grid_bytes = 0;
            for (const auto& e : fs::directory_iterator(dir / "grid"))
                grid_bytes += e.file_size();
            out["rounds"].push_back({{"write_s", w.seconds}, {"grid_bytes", grid_bytes}});
        }
        fs::remove_all(dir);
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_write: %s\n", e.what());
        return 2;
    }
}
