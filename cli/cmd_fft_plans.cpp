// `ardent fft-plans SIZE...` (hidden): measures the convolution's FFT plans of those sizes into
// the plan cache. `ardent auralize` starts it in the background, detached, after a first call of
// a size it had no measured plan for (it convolved with an estimated plan meanwhile), so the
// first call is never slowed by measuring and later calls run the measured plan.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ardent/auralize/fft_plan_cache.h"
#include "commands.h"
#include "validators.h"

extern char** environ;

namespace ardent::cli {

Action add_fft_plans(CLI::App& app) {
    auto* cmd = app.add_subcommand("fft-plans", "Measure FFT plans into the plan cache");
    cmd->group("");  // not listed: ardent auralize runs it
    auto sizes = std::make_shared<std::vector<size_t>>();
    cmd->add_option("SIZE", *sizes, "Transform sizes")->required()->check(whole_number(2, 1 << 30));
    return [sizes]() {
        // Behind whatever the user runs next.
        setpriority(PRIO_PROCESS, 0, 10);
        const auto warnings = auralize::enable_plan_cache(auralize::default_plan_cache_dir());
        for (const auto& w : warnings)
            std::fprintf(stderr, "ardent: warning: %s\n", w.c_str());
        if (!auralize::plan_cache_enabled()) return 2;
        auralize::measure_plans(*sizes);
        for (const auto& w : auralize::take_plan_cache_report().warnings)
            std::fprintf(stderr, "ardent: warning: %s\n", w.c_str());
        return 0;
    };
}

bool measure_fft_plans_in_background(const std::vector<size_t>& sizes) {
    if (sizes.empty()) return false;
    std::vector<std::string> args{"ardent", "fft-plans"};
    for (size_t n : sizes)
        args.push_back(std::to_string(n));
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    // Detached: its own session, no terminal, its output nowhere (it has nothing to say that the
    // user waits for; a failure only means the next call estimates again).
    posix_spawn_file_actions_t files;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&files);
    posix_spawnattr_init(&attr);
    for (int fd = 0; fd <= 2; ++fd)
        posix_spawn_file_actions_addopen(&files, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, "/proc/self/exe", &files, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    return rc == 0;
}

}  // namespace ardent::cli
