#include <vector>

#include "commands.h"

namespace ardent::cli {

std::map<CLI::App*, Action> add_commands(CLI::App& app) {
    app.require_subcommand(1);
    app.set_version_flag("--version", "ardent 0.1.0");
    std::map<CLI::App*, Action> actions;
    for (auto add :
         {add_info, add_voxelize, add_simulate, add_analyze, add_auralize, add_fft_plans}) {
        const size_t before = app.get_subcommands({}).size();
        Action a = add(app);
        actions[app.get_subcommands({})[before]] = a;
    }
    return actions;
}

}  // namespace ardent::cli
