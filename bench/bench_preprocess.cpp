// Preprocessing speed: voxelize + decompose a scene at the max_frequency that gives about the
// requested number of air cells, several times; prints the stage times, air cells per second and
// the partition statistics as JSON (metrics defined in bench/README.md).
// Usage: bench_preprocess [SCENE.json] [--cells N] [--repeats R]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"

namespace {

long peak_rss_kb() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string scene_file = std::string(ARDENT_SOURCE_DIR) + "/data/scenes/musikverein.json";
    double target = 15e6;
    int repeats = 3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--cells") && i + 1 < argc) {
            target = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = std::max(1, std::atoi(argv[++i]));
        } else {
            scene_file = argv[i];
        }
    }
    try {
        ardent::Scene scene = ardent::load_scene(scene_file);
        // Air cells grow as f^3: one coarse run fixes the frequency for the target.
        const ardent::Preprocessed coarse = ardent::preprocess(scene);
        const double f0 = scene.simulation.max_frequency;
        scene.simulation.max_frequency =
            std::round(f0 * std::cbrt(target / static_cast<double>(coarse.air.air_cells)));

        std::vector<double> vox, dec, total;
        nlohmann::ordered_json stats;
        for (int r = 0; r < repeats; ++r) {
            const ardent::Preprocessed p = ardent::preprocess(scene);
            vox.push_back(p.times.voxelize_s);
            dec.push_back(p.times.decompose_s);
            total.push_back(p.times.import_s + p.times.voxelize_s + p.times.decompose_s);
            if (r == 0) {
                const auto& d = p.decomposition;
                std::vector<std::pair<size_t, std::string>> shapes;
                for (const auto& [shape, n] : d.shape_counts())
                    shapes.push_back({n, shape});
                std::sort(shapes.rbegin(), shapes.rend());
                nlohmann::ordered_json common = nlohmann::ordered_json::object();
                for (size_t i = 0; i < std::min<size_t>(8, shapes.size()); ++i)
                    common[shapes[i].second] = shapes[i].first;
                stats = {{"air_cells", p.air.air_cells},
                         {"grid_cells", p.air.grid.count()},
                         {"h", p.air.grid.h},
                         {"air_volume_m3", p.air.air_volume()},
                         {"mesh_volume_m3", p.air.mesh_volume},
                         {"partitions", d.partitions.size()},
                         {"distinct_shapes", d.shape_counts().size()},
                         {"most_common_shapes", common},
                         {"share_in_partitions_16", d.share_in_partitions_at_least(16)},
                         {"share_in_partitions_32", d.share_in_partitions_at_least(32)},
                         {"interfaces", d.interfaces.size()},
                         {"pml_slabs", d.pml.size()},
                         {"pml_cells", d.pml_cells()}};
            }
        }
        auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v[v.size() / 2];
        };
        const double t = median(total);
        nlohmann::ordered_json out;
        out["scene"] = scene.name;
        out["max_frequency"] = scene.simulation.max_frequency;
        out["repeats"] = repeats;
        out["threads"] = std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "all";
        out["voxelize_s_median"] = median(vox);
        out["decompose_s_median"] = median(dec);
        out["total_s_median"] = t;
        out["total_s_min"] = *std::min_element(total.begin(), total.end());
        out["air_cells_per_s"] = static_cast<double>(stats["air_cells"].get<size_t>()) / t;
        out["peak_rss_mb"] = static_cast<double>(peak_rss_kb()) / 1024.0;
        out["statistics"] = stats;
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_preprocess: %s\n", e.what());
        return 2;
    }
}
