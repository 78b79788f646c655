#include <cstdio>
#include <string>

#include "ardent/preprocess/info.h"
#include "ardent/preprocess/scene_parser.h"
#include "commands.h"
#include "validators.h"

namespace ardent::cli {

Action add_info(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "info", "Grid, cells, partitions, interfaces, memory and time estimates of a scene");
    struct Opts {
        std::string scene;
        bool json = false;
        double max_frequency = 0;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("SCENE", o->scene, "Scene file (ardent-scene/1 JSON)")->required();
    cmd->add_flag("--json", o->json, "Print one JSON object (keys in docs/info.md)");
    cmd->add_option("--max-frequency", o->max_frequency, "Override simulation.max_frequency (Hz)")
        ->check(finite_positive());
    return [o]() {
        Scene scene = load_scene(o->scene);
        if (o->max_frequency > 0) scene.simulation.max_frequency = o->max_frequency;
        const Preprocessed p = preprocess(scene);
        if (o->json) {
            std::printf("%s\n", info_json(p).dump(2).c_str());
        } else {
            std::fputs(info_text(p).c_str(), stdout);
        }
        return 0;
    };
}

}  // namespace ardent::cli
