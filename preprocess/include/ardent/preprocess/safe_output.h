// Where Ardent writes, and the one guarantee every writer keeps (docs/cli.md, "What Ardent
// writes"): an output appears whole or not at all, and nothing Ardent did not write is replaced.
// Every command, the editor and the Python module write through this module: a file through
// OutputFile, a folder written as a whole (a results directory, a folder of maps) through
// OutputFolder, and a run that takes time holds an OutputLock on its output. An output path is
// refused before any work when it is `.` or `..`, the working directory or one of its ancestors,
// an input of the same command, something that is not a regular file (a file output) or not a
// directory (a folder output), a symbolic link, or, when it exists, unless the user asked to
// replace it; a folder is replaced only when it holds what its writer writes and nothing else
// (or nothing). Everything is written beside the target under a temporary name created
// exclusively and renamed into place at the end: a new name by an exclusive rename, so that of
// two runs to one new output the second is told, never silently overwritten.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ardent {

// What a writer may do with what exists at its target.
struct OutputRules {
    bool replace = false;  // the user asked to replace an existing output (--force, overwrite=True)
    std::string replace_hint = "--force";       // how the user asks that, for the messages
    std::vector<std::filesystem::path> inputs;  // what the command reads: never an output
};

// A kind of folder that a writer writes as a whole.
struct FolderKind {
    std::string description;  // "a results directory of ardent simulate", for the messages
    // Empty when `dir` (an existing directory, not a link) holds only what this writer writes;
    // otherwise what in it is not the writer's, for the message.
    std::function<std::string(const std::filesystem::path& dir)> foreign;
};

// "'path'", the way every message quotes a path (control characters shown as \xNN).
std::string quoted_path(const std::filesystem::path& p);
// `p` for a POSIX shell: in single quotes, each ' written as '\''.
std::string shell_quoted(const std::filesystem::path& p);

// Throws for a write that failed with errno `err` while `doing` (may be empty): ResourceError for a
// full disk, a quota or a file-size limit (exit 3), InputError otherwise (exit 2), naming the file
// and the system's reason.
[[noreturn]] void throw_write_error(const std::filesystem::path& file, int err,
                                    const std::string& doing = {});

// The checks made before any work: InputError naming the target and what is wrong.
void check_output_file(const std::filesystem::path& target, const OutputRules& rules);
void check_output_folder(const std::filesystem::path& target, const OutputRules& rules,
                         const FolderKind& kind);

// A file written under a temporary name beside its target (`<target>.tmp-<pid>-<n>`, created
// exclusively, empty) and moved into place by commit(). The destructor removes the temporary file
// unless it was committed. Writers open tmp() by name (libsndfile, libpng, HDF5 need a path).
class OutputFile {
  public:
    OutputFile(std::filesystem::path target, OutputRules rules);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    const std::filesystem::path& target() const { return target_; }
    const std::filesystem::path& tmp() const { return tmp_; }
    // Into place: a new name only if nothing has appeared there meanwhile, a replaced one only if
    // it is still a regular file (InputError otherwise; the temporary file is removed).
    void commit();

  private:
    std::filesystem::path target_, tmp_;
    OutputRules rules_;
    bool committed_ = false;
};

// Writes `target` through an OutputFile: `write(tmp)` fills the temporary file.
void write_output_file(const std::filesystem::path& target, const OutputRules& rules,
                       const std::function<void(const std::filesystem::path& tmp)>& write);

// A folder written under a temporary name beside its target and moved into place by commit().
// The destructor removes the temporary folder unless it was committed or keep() was called.
class OutputFolder {
  public:
    // `tmp`: the temporary folder (empty: `<target>.tmp-<pid>`). Checks the target
    // (check_output_folder).
    OutputFolder(std::filesystem::path target, OutputRules rules, FolderKind kind,
                 std::filesystem::path tmp = {});
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    // Makes the temporary folder, refusing one that exists; with `reuse`, an existing one (a
    // partial run resumed) is taken as it is.
    void create(bool reuse = false);
    const std::filesystem::path& target() const { return target_; }
    const std::filesystem::path& tmp() const { return tmp_; }
    // Into place. A new name only if nothing has appeared there meanwhile; an existing target is
    // replaced only if it still holds only what its writer writes, by renaming it aside to
    // `<target>.old-<pid>` first and removing that after. On refusal the temporary folder is
    // kept and the message says where.
    void commit();
    void keep() { keep_ = true; }
    void discard();

  private:
    std::filesystem::path target_, tmp_;
    OutputRules rules_;
    FolderKind kind_;
    bool created_ = false, committed_ = false, keep_ = false;
};

// One run per output (docs/cli.md, "One run per output"): a run that takes time holds an advisory
// lock on the file `<target>.lock` for as long as it writes `target`, so that a second run to the
// same target is refused at once with the holder's process id.
//
// A lock file beside the target, rather than a lock on it: the target does not exist until the
// run ends (it is renamed into place), and temporary names differ from run to run, so two runs
// would never meet on them. `<target>.lock` is the one name every run to the target shares.
//
// flock(2), because the kernel drops the lock when its holder dies, however it dies (kill -9 too):
// a lock file left by a dead run never blocks the next one, which takes it over. The lock belongs
// to the open file, so no other descriptor of the file being closed drops it (as it would drop an
// fcntl lock), and the descriptor is close-on-exec, so no child process keeps it. It keeps Ardent
// runs apart; other programs are not stopped by it.
//
// The file holds "ardent lock", the command and "pid <N>", for the message another run prints,
// and is removed when the run ends. Anything else of that name is never written or removed: the
// run is refused instead.
class OutputLock {
  public:
    // `command`: "ardent simulate", for the lock file and the other run's message. Throws
    // InputError when another run holds the lock (naming the target, the lock file and the
    // holder's process id), or when the lock file cannot be made or something else has its name.
    explicit OutputLock(const std::filesystem::path& target,
                        const std::string& command = "ardent simulate");
    ~OutputLock();  // removes the lock file, then drops the lock
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;

    static std::filesystem::path path_for(const std::filesystem::path& target);
    const std::filesystem::path& file() const { return file_; }

  private:
    std::filesystem::path file_;
    int fd_ = -1;
};

// Renames `from` to `to` only if nothing is at `to` (renameat2's RENAME_NOREPLACE, or link and
// unlink for a file where the file system lacks it). False with errno EEXIST when something is.
bool rename_exclusive(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace ardent
