// Helpers shared by the test suites: paths to the project's data and the shared data folder,
// scratch directories, scene text builders and running the `ardent` command.
#pragma once

#include <filesystem>
#include <string>

namespace ardent::test {

std::filesystem::path source_dir();
std::filesystem::path shared_dir();  // ../shared next to the checkout
bool have_shared();

// A fresh, empty directory removed when the object dies.
class ScratchDir {
  public:
    ScratchDir();
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
    std::filesystem::path write(const std::string& name, const std::string& text) const;
    // Names of every entry below the directory, sorted (to check nothing was written).
    std::string listing() const;

  private:
    std::filesystem::path path_;
};

// A file's bytes as a string (empty when it cannot be read).
std::string read_text(const std::filesystem::path& p);

struct CommandResult {
    int exit_code = -1;
    std::string out, err;
};

// Runs `ardent <args>` with the working directory `cwd`; with `timeout_s` > 0 it is killed after
// that many seconds (exit code 137), for a test of something that used to hang.
CommandResult run_ardent(const std::string& args, const std::filesystem::path& cwd,
                         int timeout_s = 0);

// A valid box scene; `extra` replaces or adds top-level keys, e.g. R"("simulation": {...})".
std::string box_scene_json(const std::string& simulation = R"({"max_frequency": 500})");

}  // namespace ardent::test
