#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/preprocess/info.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/ard_distribute.h"
#include "ardent/solvers/ard_layout.h"
#include "commands.h"
#include "validators.h"

namespace ardent::cli {
namespace {

// `--ranks N`: each rank's share of a distributed ARD run and the memory it needs, as the
// single-process estimate counts it (estimate.h) for the rank's cells and halo: 16 bytes per air
// and PML cell, the mode coefficients of every shape, FFTW scratch, and on rank 0 the recorded
// signals of one source (the others send theirs at every gather); a GPU adds 8 bytes per cell.
nlohmann::ordered_json rank_shares(const Preprocessed& p, int ranks) {
    if (p.air.sources.empty())
        throw InputError(p.scene.display_name() + ": --ranks needs a scene with a source");
    const ard::Layout L = ard::build_layout(p, 0, p.scene.listener_grid_cells() > 0);
    double shapes = 0, largest = 0;
    for (const ard::ShapeGroup& g : L.groups) {
        shapes += static_cast<double>(g.cells());
        largest = std::max(largest, static_cast<double>(g.cells()));
    }
    const double steps = std::ceil(p.scene.simulation.duration / L.dt);
    const double outputs =
        4.0 * steps * static_cast<double>(L.receivers.size() + L.grid_cells.size());
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const ard::RankShare& s : ard::plan_shares(L, ranks)) {
        const double cells = static_cast<double>(s.cells + s.halo_cells + s.pml_cells);
        const double cpu = 16 * cells + 8 * shapes + 8 * largest + (out.empty() ? outputs : 0);
        out.push_back({{"rank", out.size()},
                       {"partitions", s.partitions},
                       {"cells", s.cells},
                       {"halo_cells", s.halo_cells},
                       {"pml_cells", s.pml_cells},
                       {"memory_cpu_bytes", std::llround(cpu)},
                       {"memory_gpu_bytes", std::llround(cpu + 8 * static_cast<double>(s.cells))}});
    }
    return out;
}

std::string shares_text(const nlohmann::ordered_json& shares) {
    std::string t = "Distributed ARD over " + std::to_string(shares.size()) + " ranks:\n";
    for (const auto& s : shares) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "  rank %lld: %lld partitions, %lld cells (+%lld halo), about %s on the CPU, "
                      "%s on a GPU\n",
                      s["rank"].get<long long>(), s["partitions"].get<long long>(),
                      s["cells"].get<long long>(), s["halo_cells"].get<long long>(),
                      format_bytes(s["memory_cpu_bytes"].get<double>()).c_str(),
                      format_bytes(s["memory_gpu_bytes"].get<double>()).c_str());
        t += line;
    }
    return t;
}

}  // namespace

Action add_info(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "info", "Grid, cells, partitions, interfaces, memory and time estimates of a scene");
    struct Opts {
        std::string scene;
        bool json = false;
        double max_frequency = 0;
        int ranks = 0;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("SCENE", o->scene, "Scene file (ardent-scene/1 JSON)")->required();
    cmd->add_flag("--json", o->json, "Print one JSON object (keys in docs/info.md)");
    cmd->add_option("--max-frequency", o->max_frequency, "Override simulation.max_frequency (Hz)")
        ->check(finite_positive());
    cmd->add_option("--ranks", o->ranks,
                    "Each rank's share and memory in a distributed run over N ranks")
        ->check(whole_number(1, 4096));
    return [o]() {
        Scene scene = load_scene(o->scene);
        if (o->max_frequency > 0) scene.simulation.max_frequency = o->max_frequency;
        const Preprocessed p = preprocess(scene);
        for (const std::string& w : p.warnings)
            std::fprintf(stderr, "ardent: warning: %s\n", w.c_str());
        nlohmann::ordered_json shares;
        if (o->ranks > 0) shares = rank_shares(p, o->ranks);
        if (o->json) {
            nlohmann::ordered_json j = info_json(p);
            if (o->ranks > 0) j["ranks"] = shares;
            std::printf("%s\n", j.dump(2).c_str());
        } else {
            std::fputs(info_text(p).c_str(), stdout);
            if (o->ranks > 0) std::fputs(shares_text(shares).c_str(), stdout);
        }
        return 0;
    };
}

}  // namespace ardent::cli
