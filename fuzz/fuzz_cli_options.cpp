// The `ardent` command line's parsing: each line of the input is one argument after "ardent".
// Parsing (with the options' validators) either succeeds or throws CLI11's ParseError, for which
// the did-you-mean suggestion and CLI11's own message are formed as main() forms them. The
// subcommands' actions are not run: they simulate or write files.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "suggestions.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    constexpr size_t kMaxArgs = 64;
    std::vector<std::string> args{"ardent"};
    std::string current;
    for (size_t i = 0; i < size && args.size() < kMaxArgs; ++i) {
        if (data[i] == '\n') {
            args.push_back(current);
            current.clear();
        } else {
            current += static_cast<char>(data[i]);
        }
    }
    if (!current.empty() && args.size() < kMaxArgs) args.push_back(current);
    std::vector<const char*> argv;
    for (const std::string& a : args)
        argv.push_back(a.c_str());

    CLI::App app{"Ardent: room-acoustics simulation and auralization"};
    // The actions own the storage the options parse into: kept until parsing is done.
    const auto actions = ardent::cli::add_commands(app);
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
        (void)ardent::cli::usage_suggestion(app, static_cast<int>(argv.size()), argv.data());
        std::ostringstream out, err;
        (void)app.exit(e, out, err);
    }
    return 0;
}
