#include "test_support.h"

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

namespace ardent::test {

std::filesystem::path source_dir() {
    // Bundled test binaries run from another checkout's root on the GPU machine
    // (scripts/gpu-check), where the build machine's path does not exist.
    if (!std::filesystem::is_directory(ARDENT_SOURCE_DIR) &&
        std::filesystem::is_directory("data/scenes"))
        return std::filesystem::current_path();
    return ARDENT_SOURCE_DIR;
}
std::filesystem::path shared_dir() {
    return ARDENT_SHARED_DIR;
}
bool have_shared() {
    return std::filesystem::is_directory(shared_dir() / "data" / "models");
}

ScratchDir::ScratchDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("ardent-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::filesystem::path ScratchDir::write(const std::string& name, const std::string& text) const {
    const auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

std::string ScratchDir::listing() const {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path_))
        names.insert(std::filesystem::relative(e.path(), path_).string());
    std::string out;
    for (const auto& n : names)
        out += n + "\n";
    return out;
}

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

CommandResult run_ardent(const std::string& args, const std::filesystem::path& cwd, int timeout_s) {
    ScratchDir io;
    const std::string limit =
        timeout_s > 0 ? "timeout -s KILL " + std::to_string(timeout_s) + " " : std::string();
    const std::string cmd = "cd '" + cwd.string() + "' && " + limit + "'" +
                            std::string(ARDENT_CLI) + "' " + args + " >'" + (io / "out").string() +
                            "' 2>'" + (io / "err").string() + "'";
    const int status = std::system(cmd.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_text(io / "out");
    r.err = read_text(io / "err");
    return r;
}

std::string box_scene_json(const std::string& simulation) {
    return R"({
  "format": "ardent-scene/1",
  "name": "test box",
  "geometry": {"box": [6.0, 4.0, 3.0]},
  "materials": {"plaster": {"absorption": 0.05}, "carpet": {"absorption": 0.3}},
  "surfaces": {"floor": "carpet", "*": "plaster"},
  "sources": [{"name": "S1", "position": [1.5, 1.2, 1.4]}],
  "receivers": [{"name": "R1", "position": [4.2, 2.5, 1.6]}],
  "simulation": )" +
           simulation + R"(
})";
}

}  // namespace ardent::test
