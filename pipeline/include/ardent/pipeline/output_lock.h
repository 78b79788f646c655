// One run per output (docs/cli.md, "One run per output"): `ardent simulate -o DIR` holds an
// advisory lock on the file DIR.lock for the whole run, so that a second run to the same DIR, or a
// --resume of a checkpointed run that is still going, is refused at once with the holder's process
// id. Without it both runs computed for hours and one failed at the end, or both wrote one partial
// directory.
//
// A lock file beside DIR, rather than a lock on DIR or on a temporary directory: DIR does not exist
// until the run ends (and is then renamed into place), and a plain run's temporary DIR.tmp-<pid>
// has a name of its own for every run, so two runs would never meet on it. DIR.lock is the one
// name that every run to DIR shares, plain, checkpointed or resumed, so it also guards
// DIR.tmp-partial.
//
// flock(2), because the kernel drops the lock when its holder dies, however it dies (kill -9
// too): a lock file left by a dead run never blocks the next one, which takes it over. The lock
// belongs to the open file, so no other descriptor of the file being closed drops it (as it would
// drop an fcntl lock), and the descriptor is close-on-exec, so no child process keeps it. It keeps
// Ardent runs apart; other programs are not stopped by it.
//
// The file holds "ardent simulate lock" and "pid <N>", for the message another run prints, and is
// removed when the run ends. Only a run killed outright leaves it; the next run to DIR takes it
// over and removes it in turn (an empty file of that name too: a run that died before writing its
// pid). Anything else of that name is never written or removed: the run is refused instead.
#pragma once

#include <filesystem>

namespace ardent::pipeline {

class OutputLock {
  public:
    // Takes the lock on `<target>.lock`. Throws InputError when another run holds it (naming the
    // results directory, the lock file and the holder's process id), or when the lock file cannot
    // be made or something else has its name.
    explicit OutputLock(const std::filesystem::path& target);
    // Removes the lock file, then drops the lock.
    ~OutputLock();
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;

    static std::filesystem::path path_for(const std::filesystem::path& target);
    const std::filesystem::path& file() const { return file_; }

  private:
    std::filesystem::path file_;
    int fd_ = -1;
};

}  // namespace ardent::pipeline
