#include "ardent/preprocess/isolated_call.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ardent/preprocess/errors.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ARDENT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define ARDENT_SANITIZED 1
#endif
#endif

namespace ardent {
namespace {

// The child's answer: one tag byte, then the payload.
constexpr char kOk = 'K', kInput = 'E', kMemory = 'M', kOther = 'X';

void write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;  // the parent is gone
        p += w;
        n -= static_cast<size_t>(w);
    }
}

// Address space mapped now, from /proc/self/statm (its first field, in pages).
[[maybe_unused]] size_t mapped_bytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long pages = 0;
    const int got = std::fscanf(f, "%lu", &pages);
    std::fclose(f);
    return got == 1 ? pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

[[noreturn]] void run_child(int fd, pid_t parent, const std::function<std::string()>& work,
                            const IsolationLimits& limits) {
    // Ctrl-C is for the parent, which knows what to stop and clean up. The child ends with the
    // parent however that ends (killed by a second Ctrl-C too), and within twice the time limit
    // of CPU even if the parent waits on.
    std::signal(SIGINT, SIG_IGN);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(126);  // the parent ended before the line above
    if (limits.timeout_s > 0) {
        const auto cpu = static_cast<rlim_t>(2 * limits.timeout_s + 1);
        const rlimit r{cpu, cpu};
        ::setrlimit(RLIMIT_CPU, &r);
    }
    // Only the answer's pipe and the standard streams: a descriptor inherited from another
    // thread's work (another call's pipe) must not stay open here.
    if (fd > 3) ::close_range(3, static_cast<unsigned>(fd) - 1, 0);
    ::close_range(static_cast<unsigned>(fd) + 1, ~0U, 0);
#ifndef ARDENT_SANITIZED
    if (limits.memory_bytes > 0) {
        const rlim_t cap = mapped_bytes() + limits.memory_bytes;
        const rlimit r{cap, cap};
        ::setrlimit(RLIMIT_AS, &r);
    }
#else
    (void)limits;
#endif
    // Nothing may unwind out of here into the parent's code (its copy in this process).
    try {
        char tag = kOk;
        std::string answer;
        try {
            answer = work();
        } catch (const InputError& e) {
            tag = kInput;
            answer = e.what();
        } catch (const std::bad_alloc&) {
            tag = kMemory;
            answer.clear();
        } catch (const std::exception& e) {
            tag = kOther;
            answer = e.what();
        } catch (...) {
            tag = kOther;
            answer = "an unknown exception";
        }
        write_all(fd, &tag, 1);
        write_all(fd, answer.data(), answer.size());
    } catch (...) {
        const char tag = kMemory;  // the answer itself could not be made
        write_all(fd, &tag, 1);
    }
    ::close(fd);
    // No destructors, atexit handlers or stdio flushes of the parent's state: they are the
    // parent's to run.
    ::_exit(0);
}

std::string signal_text(int sig) {
    const char* what = sig == SIGSEGV   ? "segmentation fault"
                       : sig == SIGABRT ? "aborted"
                       : sig == SIGBUS  ? "bus error"
                       : sig == SIGFPE  ? "arithmetic error"
                       : sig == SIGILL  ? "illegal instruction"
                       : sig == SIGKILL ? "killed, perhaps for memory"
                                        : nullptr;
    return "signal " + std::to_string(sig) + (what ? std::string(", ") + what : std::string());
}

std::string gigabytes(size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / 1e9);
    return buf;
}

}  // namespace

std::string call_isolated(const std::function<std::string()>& work, const IsolationLimits& limits) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw IsolatedCallError(
            IsolatedCallError::Kind::Failure, 0,
            std::string("could not start a reader process (pipe: ") + std::strerror(errno) + ")");
    // Nothing buffered is written twice (stdout and stderr alone: fflush(nullptr) would wait for
    // a stream another thread holds).
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int err = errno;
        ::close(fds[0]);
        ::close(fds[1]);
        throw IsolatedCallError(
            IsolatedCallError::Kind::Failure, 0,
            std::string("could not start a reader process (fork: ") + std::strerror(err) + ")");
    }
    if (pid == 0) {
        ::close(fds[0]);
        run_child(fds[1], parent, work, limits);
    }
    ::close(fds[1]);
    // Whatever happens below, the pipe is closed and the child killed and reaped.
    struct Child {
        pid_t pid;
        int fd;
        bool reaped = false;
        ~Child() {
            if (fd >= 0) ::close(fd);
            if (!reaped) {
                ::kill(pid, SIGKILL);
                while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
                }
            }
        }
    } child{pid, fds[0]};

    using Clock = std::chrono::steady_clock;
    const auto deadline = limits.timeout_s > 0
                              ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(limits.timeout_s))
                              : Clock::time_point::max();
    std::string bytes;
    bool timed_out = false;
    char buf[1 << 16];
    for (;;) {
        int wait_ms = -1;
        if (limits.timeout_s > 0) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (left.count() <= 0) {
                timed_out = true;
                break;
            }
            wait_ms = static_cast<int>(std::min<long long>(left.count(), 1000));
        }
        pollfd p{child.fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;  // re-check the deadline
        const ssize_t n = ::read(child.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // the child closed its end: done or dead
        bytes.append(buf, static_cast<size_t>(n));
    }
    ::close(child.fd);
    child.fd = -1;
    if (timed_out) ::kill(pid, SIGKILL);
    int status = 0;
    pid_t waited;
    while ((waited = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    child.reaped = true;
    if (waited != pid)  // e.g. SIGCHLD ignored by the program: the child's end is unknown
        status = 0;
    if (timed_out) {
        char t[32];
        std::snprintf(t, sizeof t, "%.0f s", limits.timeout_s);
        throw IsolatedCallError(IsolatedCallError::Kind::Timeout, 0,
                                std::string("did not finish within ") + t);
    }
    if (WIFSIGNALED(status))
        throw IsolatedCallError(IsolatedCallError::Kind::Crash, WTERMSIG(status),
                                "crashed (" + signal_text(WTERMSIG(status)) + ")");
    if (bytes.empty())
        throw IsolatedCallError(IsolatedCallError::Kind::Failure, 0,
                                "ended without an answer (exit status " +
                                    std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                                    ")");
    const char tag = bytes.front();
    bytes.erase(0, 1);
    switch (tag) {
        case kOk:
            return bytes;
        case kInput:
            throw InputError(bytes);
        case kMemory:
            throw IsolatedCallError(
                IsolatedCallError::Kind::Memory, 0,
                "needed more than " + gigabytes(limits.memory_bytes) + " of memory");
        default:
            throw IsolatedCallError(IsolatedCallError::Kind::Failure, 0, "failed: " + bytes);
    }
}

}  // namespace ardent
