// `ardent`: the command-line front end. Thin: every subcommand calls the libraries and maps their
// errors to exit codes (0 ok, 1 internal error, 2 bad input, 3 not enough resources).
#include <cstdio>
#include <exception>
#include <map>
#include <new>
#include <string>

#include "ardent/preprocess/errors.h"
#include "commands.h"
#include "suggestions.h"

int main(int argc, char** argv) {
    CLI::App app{"Ardent: room-acoustics simulation and auralization"};
    const std::map<CLI::App*, ardent::cli::Action> actions = ardent::cli::add_commands(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // A mistyped command or option: say what was probably meant rather than CLI11's "A
        // subcommand is required" or "arguments were not expected".
        const std::string hint =
            e.get_exit_code() == 0 ? "" : ardent::cli::usage_suggestion(app, argc, argv);
        if (!hint.empty()) {
            std::fprintf(stderr, "ardent: error: %s\nRun with --help for more information.\n",
                         hint.c_str());
            return 2;
        }
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    try {
        for (auto& [sub, action] : actions)
            if (sub->parsed()) return action();
        return 2;
    } catch (const ardent::InputError& e) {
        std::fprintf(stderr, "ardent: error: %s\n", e.what());
        return 2;
    } catch (const ardent::ResourceError& e) {
        std::fprintf(stderr, "ardent: not enough resources: %s\n", e.what());
        return 3;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "ardent: not enough resources: out of memory\n");
        return 3;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ardent: internal error: %s\n", e.what());
        return 1;
    }
}
