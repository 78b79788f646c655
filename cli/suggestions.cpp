#include "suggestions.h"

#include <string_view>
#include <vector>

#include "ardent/preprocess/scene_parser.h"

namespace ardent::cli {
namespace {

std::string joined(const std::vector<std::string>& words, std::string_view prefix) {
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : ", ") + std::string(prefix) + w;
    return out;
}

std::string unknown_command(const std::vector<std::string>& names, const std::string& word) {
    const std::string near = nearest_word(word, names);
    if (!near.empty()) return "unknown command '" + word + "'; did you mean '" + near + "'?";
    return "unknown command '" + word + "'; the commands are " + joined(names, "");
}

// The first `--name` (or `--name=value`) that `sub` does not know, with the nearest it does.
std::string unknown_option(const CLI::App& sub, int first, int argc, const char* const* argv) {
    std::vector<std::string> names;
    for (const CLI::Option* o : sub.get_options())
        for (const auto& n : o->get_lnames())
            names.push_back(n);
    for (int i = first; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--") break;  // what follows is positional, whatever it looks like
        if (arg.size() < 3 || arg.substr(0, 2) != "--") continue;
        const std::string name(arg.substr(2, arg.find('=') - 2));
        if (sub.get_option_no_throw("--" + name)) continue;
        const std::string head =
            "unknown option '--" + name + "' of 'ardent " + sub.get_name() + "'; ";
        const std::string near = nearest_word(name, names);
        if (!near.empty()) return head + "did you mean '--" + near + "'?";
        return head + "the options are " + joined(names, "--");
    }
    return {};
}

}  // namespace

std::string usage_suggestion(const CLI::App& app, int argc, const char* const* argv) {
    // The top level takes only flags (--help, --version), so its first word is the command.
    int i = 1;
    while (i < argc && argv[i][0] == '-')
        ++i;
    if (i == argc) return {};
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({}))
        names.push_back(sub->get_name());
    const CLI::App* sub = nullptr;
    for (const CLI::App* s : app.get_subcommands({}))
        if (s->get_name() == argv[i]) sub = s;
    if (!sub) return unknown_command(names, argv[i]);
    return unknown_option(*sub, i + 1, argc, argv);
}

}  // namespace ardent::cli
