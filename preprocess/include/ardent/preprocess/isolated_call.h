// Running a library call that reads untrusted files in a child process, so that what the library
// does wrong with a damaged file cannot take the program down with it. Assimp 5.2 (Debian's) was
// found by fuzz_mesh_import to ask for 12 GB on a 1 KB COLLADA file, to corrupt its heap, and to
// hang on a PLY header; the editor would lose the user's unsaved work to any of them. The child
// (fork(), no exec) runs the call with a memory budget and a time limit and hands its result back
// as bytes through a pipe; a crash, an exhausted budget or a timeout in it becomes an
// IsolatedCallError in the caller, which stays as it was.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

namespace ardent {

struct IsolationLimits {
    // Address space the call may take beyond what the process has mapped at the call (RLIMIT_AS
    // in the child); 0: no limit. Not applied in sanitizer builds, whose shadow memory is address
    // space too.
    size_t memory_bytes = 0;
    double timeout_s = 0;  // the child is killed after this long; 0: no limit
};

class IsolatedCallError : public std::runtime_error {
  public:
    enum class Kind {
        Memory,   // the call ran out of its memory budget (std::bad_alloc in the child)
        Crash,    // the child died of a signal (signal())
        Timeout,  // killed after IsolationLimits::timeout_s
        Failure,  // the call threw something other than InputError, or the child could not run
    };
    IsolatedCallError(Kind kind, int signal, const std::string& what)
        : std::runtime_error(what), kind_(kind), signal_(signal) {}
    Kind kind() const { return kind_; }
    int signal() const { return signal_; }

  private:
    Kind kind_;
    int signal_;
};

// Runs `work` in a child process and returns the bytes it returned. An InputError it throws is
// thrown again here with the same message; anything else that goes wrong is an IsolatedCallError
// whose message says what happened in words a user can read ("crashed (signal 11, segmentation
// fault)", "needed more than 4.0 GB", "did not finish within 120 s"). The child shares nothing
// with the caller after the fork: only the returned bytes come back.
std::string call_isolated(const std::function<std::string()>& work, const IsolationLimits& limits);

}  // namespace ardent
