#include "ardent/preprocess/safe_output.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/input_file.h"

namespace ardent {
namespace fs = std::filesystem;

std::string quoted_path(const fs::path& p) {
    std::string s = "'";
    for (const char c : p.string()) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", u);
            s += b;
        } else {
            s += c;
        }
    }
    return s + "'";
}

std::string shell_quoted(const fs::path& p) {
    std::string s = "'";
    for (const char c : p.string())
        s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return s + "'";
}

void throw_write_error(const fs::path& file, int err, const std::string& doing) {
    const std::string what = "cannot write " + quoted_path(file) +
                             (doing.empty() ? std::string() : " (" + doing + ")") + ": " +
                             (err ? std::strerror(err) : "the write failed");
    // A full disk or quota, or a file larger than the limit: the machine's, not the input's.
    if (err == ENOSPC || err == EDQUOT || err == EFBIG) throw ResourceError(what);
    throw InputError(what);
}

namespace {

fs::path parent_of(const fs::path& p) {
    return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

// The path without trailing separators ("out/" is "out"), so that its last part is its name.
fs::path without_trailing_slash(const fs::path& p) {
    std::string s = p.string();
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

// Absolute, with `.`, `..` and the links of the parts that exist resolved.
fs::path resolved(const fs::path& p) {
    std::error_code ec;
    fs::path a = fs::absolute(p, ec);
    if (ec) return p.lexically_normal();
    fs::path r = fs::weakly_canonical(a, ec);
    r = ec ? a.lexically_normal() : r;
    return without_trailing_slash(r);
}

// `inner` is `outer` or lies below it (both resolved).
bool within(const fs::path& inner, const fs::path& outer) {
    auto i = inner.begin();
    for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
        if (i == inner.end() || *i != *o) return false;
    return true;
}

std::string kind_of(const fs::file_status& s) {
    return file_type_text(s.type());
}

// An InputError about `target` (its subject the file, for the Python module's exceptions).
[[noreturn]] void refuse(const fs::path& target, const std::string& message) {
    throw InputError(message, ErrorSubject{target.string(), {}, {}});
}

// What no output may be, whatever exists: no name, '.', '..', '/', the working directory or a
// folder above it. Returns the path without trailing separators.
fs::path check_name(const fs::path& target) {
    if (target.empty()) refuse(target, "no output path was given");
    const fs::path t = without_trailing_slash(target);
    const std::string name = t.filename().string();
    if (name == "." || name == ".." || t == "/" || name.empty())
        refuse(target, quoted_path(target) + " cannot be an output: Ardent writes only to a " +
                           "named file or folder, never to '.', '..' or '/'");
    std::error_code ec;
    if (within(resolved(fs::current_path(ec)), resolved(t)))
        refuse(target,
               quoted_path(target) +
                   " cannot be an output: it is the working directory or a folder above it");
    return t;
}

// The checks shared by files and folders; returns the target's status (not following a link).
fs::file_status check_common(const fs::path& target, const OutputRules& rules, bool folder) {
    const fs::path t = check_name(target);
    std::error_code ec;
    const fs::path where = resolved(t);
    const fs::file_status status = fs::symlink_status(t, ec);
    for (const fs::path& input : rules.inputs) {
        if (input.empty()) continue;
        const fs::path in = resolved(input);
        const bool same = in == where || (fs::exists(status) && fs::exists(input, ec) &&
                                          fs::equivalent(input, t, ec));
        if (same)
            refuse(target, quoted_path(target) +
                               " cannot be an output: it is an input of this command (" +
                               quoted_path(input) + "); choose another name");
        if (folder && within(in, where))
            refuse(target, quoted_path(target) +
                               " cannot be an output: it holds an input of this command (" +
                               quoted_path(input) + "); choose another name");
    }
    const fs::path parent = parent_of(t);
    if (!fs::is_directory(parent, ec))
        refuse(target, "cannot write " + quoted_path(target) + ": its folder " +
                           quoted_path(parent) + " does not exist");
    if (fs::is_symlink(status))
        refuse(target, quoted_path(target) +
                           " is a symbolic link, and Ardent never writes through one: write to the "
                           "path it points to, or choose another name");
    return status;
}

std::atomic<unsigned> g_tmp_counter{0};

}  // namespace

void check_output_file(const fs::path& target, const OutputRules& rules) {
    const fs::file_status status = check_common(target, rules, false);
    if (!fs::exists(status)) return;
    if (!fs::is_regular_file(status))
        refuse(target, quoted_path(target) + " exists and is " + kind_of(status) +
                           ", which Ardent never replaces; choose another name");
    if (!rules.replace)
        refuse(target, quoted_path(target) + " already exists; choose another name or pass " +
                           rules.replace_hint + " to replace it");
}

void check_output_folder(const fs::path& target, const OutputRules& rules, const FolderKind& kind) {
    const fs::file_status status = check_common(target, rules, true);
    if (!fs::exists(status)) return;
    if (!fs::is_directory(status))
        refuse(target, quoted_path(target) + " exists and is " + kind_of(status) +
                           ", not a directory, which Ardent never replaces; choose another name");
    if (!rules.replace)
        refuse(target, "output directory " + quoted_path(target) + " exists already; use " +
                           rules.replace_hint +
                           " to replace it (it is replaced only once the new output is complete) "
                           "or choose another name");
    std::error_code ec;
    if (fs::is_empty(target, ec) && !ec) return;
    if (const std::string why = kind.foreign(target); !why.empty())
        refuse(target, rules.replace_hint + " replaces only " + kind.description + ", and " + why +
                           "; choose another name, or remove " + quoted_path(target) + " yourself");
}

bool rename_exclusive(const fs::path& from, const fs::path& to) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0)
        return true;
    if (errno != EINVAL && errno != ENOSYS) return false;
    // A file system without RENAME_NOREPLACE: link(2) refuses an existing name too.
    struct stat s {};
    if (::lstat(from.c_str(), &s) == 0 && S_ISDIR(s.st_mode)) {
        if (::lstat(to.c_str(), &s) == 0) {
            errno = EEXIST;
            return false;
        }
        return ::rename(from.c_str(), to.c_str()) == 0;
    }
    if (::link(from.c_str(), to.c_str()) != 0) return false;
    ::unlink(from.c_str());
    return true;
}

// ---- OutputFile -------------------------------------------------------------------------------

OutputFile::OutputFile(fs::path target, OutputRules rules)
    : target_(without_trailing_slash(target)), rules_(std::move(rules)) {
    check_output_file(target_, rules_);
    for (int attempt = 0; attempt < 1000; ++attempt) {
        fs::path tmp = target_;
        tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(g_tmp_counter++);
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            ::close(fd);
            tmp_ = std::move(tmp);
            return;
        }
        if (errno != EEXIST) throw_write_error(target_, errno, "its temporary file");
    }
    throw InputError("cannot write " + quoted_path(target_) + ": no free temporary name beside it");
}

OutputFile::~OutputFile() {
    if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::commit() {
    int err = 0;
    if (!rules_.replace) {
        if (!rename_exclusive(tmp_, target_)) err = errno;
        if (err == EEXIST)
            throw InputError(quoted_path(target_) +
                             " appeared while it was being written (another run?), and was "
                             "left as it is; nothing was written");
    } else {
        struct stat s {};
        if (::lstat(target_.c_str(), &s) == 0 && !S_ISREG(s.st_mode))
            throw InputError(quoted_path(target_) +
                             " was replaced by something that is not a regular file while it "
                             "was being written, and was left as it is; nothing was written");
        if (::rename(tmp_.c_str(), target_.c_str()) != 0) err = errno;
    }
    if (err) throw_write_error(target_, err, "moving it into place");
    committed_ = true;
}

void write_output_file(const fs::path& target, const OutputRules& rules,
                       const std::function<void(const fs::path& tmp)>& write) {
    OutputFile file(target, rules);
    write(file.tmp());
    file.commit();
}

// ---- OutputFolder -----------------------------------------------------------------------------

OutputFolder::OutputFolder(fs::path target, OutputRules rules, FolderKind kind, fs::path tmp)
    : target_(without_trailing_slash(target)),
      tmp_(std::move(tmp)),
      rules_(std::move(rules)),
      kind_(std::move(kind)) {
    check_output_folder(target_, rules_, kind_);
    if (tmp_.empty()) {
        tmp_ = target_;
        tmp_ += ".tmp-" + std::to_string(::getpid());
    }
}

OutputFolder::~OutputFolder() {
    if (created_ && !committed_ && !keep_) discard();
}

void OutputFolder::create(bool reuse) {
    std::error_code ec;
    if (reuse) {
        if (!fs::is_directory(fs::symlink_status(tmp_, ec)))
            throw InputError("nothing to resume: no partial run at " + quoted_path(tmp_));
    } else {
        if (fs::exists(fs::symlink_status(tmp_, ec)))  // an earlier process had this one's id
            throw InputError(quoted_path(tmp_) +
                             ", left by an earlier run, is in the way: remove it with rm -r " +
                             shell_quoted(tmp_));
        if (::mkdir(tmp_.c_str(), 0755) != 0) throw_write_error(tmp_, errno, "a new folder");
    }
    created_ = true;
}

void OutputFolder::commit() {
    std::error_code ec;
    fs::path old;
    const auto refuse = [&](const std::string& why) {
        keep_ = true;
        throw InputError(why + "; the output stays in " + quoted_path(tmp_));
    };
    if (fs::exists(fs::symlink_status(target_, ec))) {
        if (!rules_.replace)
            refuse("output directory " + quoted_path(target_) + " appeared while writing it");
        // It may have changed meanwhile: still never replace what is not the writer's.
        const auto status = fs::symlink_status(target_, ec);
        if (fs::is_symlink(status) || !fs::is_directory(status))
            refuse(quoted_path(target_) + " is no longer a folder");
        if (!fs::is_empty(target_, ec))
            if (const std::string why = kind_.foreign(target_); !why.empty())
                refuse(rules_.replace_hint + " replaces only " + kind_.description + ", and " +
                       why);
        old = target_;
        old += ".old-" + std::to_string(::getpid());
        if (::rename(target_.c_str(), old.c_str()) != 0)
            throw_write_error(target_, errno, "moving the old one aside");
    }
    if (!rename_exclusive(tmp_, target_)) {
        const int err = errno;
        if (!old.empty()) ::rename(old.c_str(), target_.c_str());
        if (err == EEXIST)
            refuse("output directory " + quoted_path(target_) + " appeared while writing it");
        keep_ = true;
        throw_write_error(target_, err, "moving it into place");
    }
    committed_ = true;
    if (!old.empty()) fs::remove_all(old, ec);
}

void OutputFolder::discard() {
    std::error_code ec;
    if (created_) fs::remove_all(tmp_, ec);
    created_ = false;
}

// ---- OutputLock -------------------------------------------------------------------------------

namespace {

constexpr char kHeader[] = "ardent lock\n";
constexpr char kOldHeader[] = "ardent simulate lock\n";  // lock files of earlier versions

// The file's text, at most a few hundred bytes (a lock file is three short lines).
std::string contents(int fd) {
    char buf[256];
    const ssize_t n = ::pread(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

bool is_lock_text(const std::string& text) {
    return text.empty() || text.rfind(kHeader, 0) == 0 || text.rfind(kOldHeader, 0) == 0;
}

// The value of the line "<key> <value>" in a lock file's text, or "".
std::string line_value(const std::string& text, const std::string& key) {
    const size_t at = text.find("\n" + key + " ");
    if (at == std::string::npos) return {};
    const size_t from = at + key.size() + 2, end = text.find('\n', from);
    return end == std::string::npos ? std::string() : text.substr(from, end - from);
}

// The holder's process id and command from its lock file. The holder writes them right after
// taking the lock, so a short wait covers that moment.
std::pair<std::string, std::string> holder(int fd) {
    for (int i = 0; i < 50; ++i) {
        const std::string text = contents(fd);
        if (const std::string pid = line_value(text, "pid"); !pid.empty()) {
            const std::string cmd = line_value(text, "command");
            return {pid, cmd.empty() ? std::string("ardent simulate") : cmd};
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return {};
}

[[noreturn]] void in_the_way(const fs::path& file, const fs::path& target, const char* what) {
    throw InputError(quoted_path(file) + " is in the way: Ardent keeps the lock of " +
                     quoted_path(target) + " there, and it is " + what +
                     "; move it away, or choose another output");
}

}  // namespace

fs::path OutputLock::path_for(const fs::path& target) {
    fs::path p = without_trailing_slash(target);
    p += ".lock";
    return p;
}

OutputLock::OutputLock(const fs::path& target, const std::string& command)
    : file_(path_for(check_name(target))) {
    // A lock file removed by the run that held it, between our open() and our flock(), leaves us
    // holding a lock that no one else can find: then start again on the file now at the path.
    for (int attempt = 0; attempt < 100; ++attempt) {
        // No O_TRUNC (a file of this name may be a user's), no following a link, and O_NONBLOCK so
        // that a FIFO of this name cannot hang the open.
        const int fd =
            ::open(file_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
        if (fd < 0) {
            const int err = errno;
            const fs::path parent = parent_of(without_trailing_slash(target));
            std::error_code ec;
            if (err == ENOENT && !fs::is_directory(parent, ec))
                throw InputError("cannot write " + quoted_path(target) + ": its folder " +
                                 quoted_path(parent) + " does not exist");
            if (err == ELOOP) in_the_way(file_, target, "a symbolic link");
            if (err == EISDIR) in_the_way(file_, target, "a directory");
            throw_write_error(target, err, "its lock file " + quoted_path(file_));
        }
        struct stat opened {};
        if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
            ::close(fd);
            in_the_way(file_, target, "not a regular file");
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            const auto [pid, cmd] =
                err == EWOULDBLOCK ? holder(fd) : std::pair<std::string, std::string>();
            const std::string text = contents(fd);
            ::close(fd);
            if (err != EWOULDBLOCK)
                throw InputError("cannot lock " + quoted_path(file_) + ": " + std::strerror(err));
            if (!is_lock_text(text)) in_the_way(file_, target, "a file that Ardent did not write");
            throw InputError(
                "another " + (cmd.empty() ? std::string("Ardent run") : cmd) +
                (pid.empty() ? std::string() : " (process " + pid + ")") + " is writing " +
                quoted_path(target) + " and holds its lock " + quoted_path(file_) +
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
            in_the_way(file_, target, "a file that Ardent did not write");
        }
        const std::string text = std::string(kHeader) + "command " + command + "\npid " +
                                 std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd, 0) != 0 ||
            ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
            const int err = errno;
            ::unlink(file_.c_str());
            ::close(fd);
            throw_write_error(file_, err, "the lock file");
        }
        fd_ = fd;
        return;
    }
    throw InputError("cannot lock " + quoted_path(file_) + ": other processes keep replacing it");
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

}  // namespace ardent
