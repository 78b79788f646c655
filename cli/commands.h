// Subcommands of the `ardent` command line. Each registers its options on the CLI11 app and returns
// the action to run once parsing succeeded; actions throw ardent::InputError / ResourceError, which
// main() turns into messages and exit codes 2 / 3.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <vector>

#include <CLI/CLI.hpp>

namespace ardent::cli {

using Action = std::function<int()>;

Action add_info(CLI::App& app);
Action add_voxelize(CLI::App& app);
Action add_simulate(CLI::App& app);
Action add_analyze(CLI::App& app);
Action add_auralize(CLI::App& app);
Action add_fft_plans(CLI::App& app);

// The whole command line on `app` (one subcommand required, --version): every subcommand above,
// with the action each runs once parsing succeeded. The actions own the variables the options
// parse into: keep them until parsing is done. main() and the option-parsing fuzz target both
// start here.
std::map<CLI::App*, Action> add_commands(CLI::App& app);

// Starts `ardent fft-plans SIZES...` detached in the background; false if it could not start.
bool measure_fft_plans_in_background(const std::vector<size_t>& sizes);

}  // namespace ardent::cli
