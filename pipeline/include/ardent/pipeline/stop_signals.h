// The signals that end a run cleanly, in every front end (the CLI's commands, the editor):
// SIGINT (Ctrl-C), SIGTERM, SIGHUP (the terminal closed) and SIGPIPE (the reader of the output
// went away, as in `ardent simulate ... | head -1`) raise a stop flag that the run checks at its
// stop points (interrupted.h), so that it removes its temporary output or keeps a checkpointed
// run's partial directory, drops its lock and says so where a terminal remains. SIGXFSZ is ignored:
// a write past the file-size limit (ulimit -f) then fails with EFBIG and the run ends as any
// failed write does, with a resources error naming the file. A second SIGINT or SIGTERM kills at
// once (the user insists); a second SIGPIPE or SIGHUP does not, since more writes to a closed pipe
// or terminal are certain while the run winds down. A signal that was ignored when the program
// started (nohup, a background job) stays ignored.
#pragma once

#include <atomic>

namespace ardent::pipeline {

class StopSignals {
  public:
    StopSignals();   // installs the handlers and lowers the flag
    ~StopSignals();  // restores the handlers there were
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // The flag the run checks (simulate()'s `stop`).
    static const std::atomic<bool>* flag();
    static bool raised() { return flag()->load(); }
    // The signal that raised it (0: none).
    static int signal();
    // The exit status of a run ended by it: 128 + the signal.
    static int exit_code();
};

}  // namespace ardent::pipeline
