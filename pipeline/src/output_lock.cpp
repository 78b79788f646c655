#include "ardent/pipeline/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "ardent/preprocess/errors.h"

namespace ardent::pipeline {
namespace fs = std::filesystem;

namespace {

constexpr char kHeader[] = "ardent simulate lock\n";

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

// The file's text, at most a few hundred bytes (a lock file is two short lines).
std::string contents(int fd) {
    char buf[256];
    const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

bool is_lock_text(const std::string& text) {
    return text.empty() || text.rfind(kHeader, 0) == 0;
}

// The holder's process id from its lock file, or "" when it has not written it yet. The holder
// writes it right after taking the lock, so a short wait covers that moment.
std::string holder_pid(int fd) {
    for (int i = 0; i < 50; ++i) {
        const std::string text = contents(fd);
        const size_t at = text.find("\npid ");
        if (at != std::string::npos) {
            const size_t end = text.find('\n', at + 5);
            if (end != std::string::npos) return text.substr(at + 5, end - at - 5);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return {};
}

[[noreturn]] void in_the_way(const fs::path& file, const fs::path& target, const char* what) {
    throw InputError(quoted(file) + " is in the way: ardent simulate keeps the lock of " +
                     quoted(target) + " there, and it is " + what +
                     "; move it away, or choose another -o");
}

}  // namespace

fs::path OutputLock::path_for(const fs::path& target) {
    fs::path p = target;
    p += ".lock";
    return p;
}

OutputLock::OutputLock(const fs::path& target) : file_(path_for(target)) {
    // A lock file removed by the run that held it, between our open() and our flock(), leaves us
    // holding a lock that no one else can find: then start again on the file now at the path.
    for (int attempt = 0; attempt < 100; ++attempt) {
        // No O_TRUNC (a file of this name may be a user's), no following a link, and O_NONBLOCK so
        // that a FIFO of this name cannot hang the open.
        const int fd =
            ::open(file_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
        if (fd < 0) {
            const int err = errno;
            const fs::path parent = target.has_parent_path() ? target.parent_path() : ".";
            std::error_code ec;
            if (err == ENOENT && !fs::is_directory(parent, ec))
                throw InputError("cannot write " + quoted(target) + ": its parent directory " +
                                 quoted(parent) + " does not exist");
            if (err == ELOOP) in_the_way(file_, target, "a symbolic link");
            if (err == EISDIR) in_the_way(file_, target, "a directory");
            throw InputError("cannot write " + quoted(target) + ": cannot create its lock file " +
                             quoted(file_) + ": " + std::strerror(err));
        }
        struct stat opened {};
        if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
            ::close(fd);
            in_the_way(file_, target, "not a regular file");
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            const std::string pid = err == EWOULDBLOCK ? holder_pid(fd) : std::string();
            const std::string text = contents(fd);
            ::close(fd);
            if (err != EWOULDBLOCK)
                throw InputError("cannot lock " + quoted(file_) + ": " + std::strerror(err));
            if (!is_lock_text(text))
                in_the_way(file_, target, "a file that ardent simulate did not write");
            throw InputError(
                "another ardent simulate" +
                (pid.empty() ? std::string() : " (process " + pid + ")") + " is writing " +
                quoted(target) + " and holds its lock " + quoted(file_) +
                ": wait for it to end, or stop it" + (pid.empty() ? "" : " (kill " + pid + ")") +
                "; one output takes one run at a time, and --resume continues only a run that has "
                "stopped");
        }
        struct stat now {};
        if (::stat(file_.c_str(), &now) != 0 || now.st_ino != opened.st_ino ||
            now.st_dev != opened.st_dev) {
            ::close(fd);
            continue;
        }
        // Ours now: a lock file of a run that died (its pid is stale), one we just made (empty),
        // or a user's file of the same name, which is left as it was.
        if (!is_lock_text(contents(fd))) {
            ::close(fd);
            in_the_way(file_, target, "a file that ardent simulate did not write");
        }
        const std::string text = std::string(kHeader) + "pid " + std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd, 0) != 0 ||
            ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
            const int err = errno;
            ::unlink(file_.c_str());
            ::close(fd);
            throw InputError("cannot write the lock file " + quoted(file_) + ": " +
                             std::strerror(err));
        }
        fd_ = fd;
        return;
    }
    throw InputError("cannot lock " + quoted(file_) + ": other processes keep replacing it");
}

OutputLock::~OutputLock() {
    if (fd_ < 0) return;
    // Removed while still held, so that no other run can lock this file after us and think it
    // holds the lock while a third makes a new file at the path.
    struct stat held {
    }, now{};
    if (::fstat(fd_, &held) == 0 && ::stat(file_.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev)
        ::unlink(file_.c_str());
    ::close(fd_);
}

}  // namespace ardent::pipeline
