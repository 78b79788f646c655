#include "ardent/pipeline/stop_signals.h"

#include <csignal>

namespace ardent::pipeline {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
struct sigaction g_old[sizeof kStopSignals / sizeof kStopSignals[0]];
struct sigaction g_old_xfsz;

extern "C" void on_stop_signal(int sig) {
    g_signal.store(sig);
    g_stop.store(true);
    if (sig == SIGINT || sig == SIGTERM) {  // a second one kills at once
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, nullptr);
    }
}

}  // namespace

StopSignals::StopSignals() {
    g_stop.store(false);
    g_signal.store(0);
    struct sigaction on {};
    on.sa_handler = on_stop_signal;
    sigemptyset(&on.sa_mask);
    on.sa_flags = SA_RESTART;  // system calls go on; the run stops at its next stop point
    for (size_t i = 0; i < sizeof kStopSignals / sizeof kStopSignals[0]; ++i) {
        sigaction(kStopSignals[i], nullptr, &g_old[i]);
        // A signal ignored by whoever started us stays ignored: `nohup ardent ...` must outlive
        // its terminal, and a background job of a script its Ctrl-C.
        if (g_old[i].sa_handler != SIG_IGN) sigaction(kStopSignals[i], &on, nullptr);
    }
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, &g_old_xfsz);
}

StopSignals::~StopSignals() {
    for (size_t i = 0; i < sizeof kStopSignals / sizeof kStopSignals[0]; ++i)
        sigaction(kStopSignals[i], &g_old[i], nullptr);
    sigaction(SIGXFSZ, &g_old_xfsz, nullptr);
}

const std::atomic<bool>* StopSignals::flag() {
    return &g_stop;
}

int StopSignals::signal() {
    return g_signal.load();
}

int StopSignals::exit_code() {
    return 128 + (g_signal.load() ? g_signal.load() : SIGINT);
}

}  // namespace ardent::pipeline
