// The one output guarantee (safe_output.h, docs/cli.md "What Ardent writes"), through the module
// and through every command that writes: nothing that Ardent did not write is replaced (a user's
// folder or file, a FIFO, a device, the working directory or a folder above it, a command's own
// input), an output appears whole or not at all, and of two writers to one new output the second
// is told. Every refusal names the path, exits 2 and leaves everything as it was.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "ardent/auralize/audio_io.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/safe_output.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/scene_writer.h"
#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;

void expect_has(const std::string& text, std::initializer_list<const char*> parts) {
    for (const char* part : parts)
        EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in: " << text;
}

// A short decaying noise burst, mono, as a dry signal or an IR.
void write_signal(const fs::path& file, int fs, double seconds, unsigned seed) {
    std::vector<float> x(static_cast<size_t>(seconds * fs));
    unsigned state = seed;
    for (size_t i = 0; i < x.size(); ++i) {
        state = state * 1664525u + 1013904223u;
        const double noise = static_cast<double>(state >> 8) / (1 << 24) - 0.5;
        x[i] = static_cast<float>(noise * std::exp(-6.0 * static_cast<double>(i) / fs));
    }
    audio::write_wav_float(file, x, fs);
}

// A user's folder with a file in it, as a -o target.
fs::path users_folder(const ScratchDir& dir, const std::string& name) {
    fs::create_directories(dir / name);
    dir.write(name + "/notes.txt", "mine");
    return dir / name;
}

// ---- the module -------------------------------------------------------------------------------

TEST(SafeOutput, RefusesWhatItMustNeverReplace) {
    ScratchDir dir;
    const fs::path fifo = dir / "fifo.wav";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    dir.write("mine.txt", "mine");
    fs::create_symlink(dir / "mine.txt", dir / "link.txt");
    users_folder(dir, "folder");
    OutputRules replace;
    replace.replace = true;
    const auto refused = [&](const fs::path& target, std::initializer_list<const char*> parts) {
        try {
            check_output_file(target, replace);
            ADD_FAILURE() << target << " was accepted";
        } catch (const InputError& e) {
            expect_has(e.what(), parts);
        }
    };
    refused(fifo, {"fifo.wav", "a FIFO", "never replaces"});
    refused("/dev/full", {"/dev/full", "a character device"});
    refused(dir / "link.txt", {"link.txt", "symbolic link"});
    refused(dir / "folder", {"folder", "a folder"});
    refused(".", {"'.'", "never to '.', '..' or '/'"});
    refused("..", {"'..'"});
    refused(dir / "folder" / ".", {"never to"});
    refused("/", {"'/'"});
    refused(fs::current_path().parent_path(), {"working directory or a folder above it"});
    refused(dir / "missing" / "x.wav", {"missing", "does not exist"});
    OutputRules with_input = replace;
    with_input.inputs = {dir / "mine.txt"};
    try {
        check_output_file(dir / "." / "mine.txt", with_input);
        ADD_FAILURE() << "an input was accepted as an output";
    } catch (const InputError& e) {
        expect_has(e.what(), {"mine.txt", "an input of this command"});
    }
    // Without replace, an existing regular file is refused too, naming how to ask.
    OutputRules keep;
    keep.replace_hint = "overwrite=True";
    try {
        check_output_file(dir / "mine.txt", keep);
        ADD_FAILURE() << "an existing file was accepted";
    } catch (const InputError& e) {
        expect_has(e.what(), {"mine.txt", "already exists", "overwrite=True"});
    }
    struct stat st {};
    ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_EQ(read_text(dir / "mine.txt"), "mine");
    EXPECT_EQ(read_text(dir / "folder" / "notes.txt"), "mine");
}

// Of two writers to one new file, the first to finish wins and the second is told (it used to
// replace the first's file silently); nothing temporary is left.
TEST(SafeOutput, TheSecondWriterToANewFileIsTold) {
    ScratchDir dir;
    const fs::path target = dir / "out.txt";
    OutputFile first(target, {}), second(target, {});
    std::ofstream(first.tmp()) << "first";
    std::ofstream(second.tmp()) << "second";
    first.commit();
    try {
        second.commit();
        ADD_FAILURE() << "the second writer replaced the first's file";
    } catch (const InputError& e) {
        expect_has(e.what(), {"out.txt", "appeared while it was being written"});
    }
    EXPECT_EQ(read_text(target), "first");
}

TEST(SafeOutput, AFailedWriteLeavesNothing) {
    ScratchDir dir;
    EXPECT_THROW(write_output_file(dir / "out.txt", {},
                                   [](const fs::path& tmp) {
                                       std::ofstream(tmp) << "half";
                                       throw InputError("failed half way");
                                   }),
                 InputError);
    EXPECT_EQ(dir.listing(), "");
}

// A folder is replaced only when it holds what its writer writes; a user's folder never.
TEST(SafeOutput, AFolderIsReplacedOnlyWhenItIsTheWritersOwn) {
    ScratchDir dir;
    const FolderKind kind{"a folder of this test", [](const fs::path& d) {
                              return fs::exists(d / "ours") ? std::string()
                                                            : quoted_path(d) + " is not ours";
                          }};
    OutputRules replace;
    replace.replace = true;
    users_folder(dir, "users");
    EXPECT_THROW(OutputFolder(dir / "users", replace, kind), InputError);
    EXPECT_EQ(read_text(dir / "users" / "notes.txt"), "mine");

    fs::create_directories(dir / "ours");
    dir.write("ours/ours", "old");
    {
        OutputFolder folder(dir / "ours", replace, kind);
        folder.create();
        std::ofstream(folder.tmp() / "ours") << "new";
        folder.commit();
    }
    EXPECT_EQ(read_text(dir / "ours" / "ours"), "new");
    EXPECT_EQ(dir.listing(), "ours\nours/ours\nusers\nusers/notes.txt\n");
}

TEST(SafeOutput, ASecondRunIsRefusedWhileTheLockIsHeld) {
    ScratchDir dir;
    const OutputLock held(dir / "out.wav", "ardent auralize");
    try {
        const OutputLock second(dir / "out.wav", "ardent auralize");
        ADD_FAILURE() << "the lock was taken twice";
    } catch (const InputError& e) {
        const std::string holder =
            "another ardent auralize (process " + std::to_string(::getpid()) + ")";
        expect_has(e.what(), {holder.c_str(), "out.wav"});
    }
}

// ---- the writers ------------------------------------------------------------------------------

class WritersKeepUsersData : public ::testing::Test {
  protected:
    void SetUp() override {
        write_signal(dir / "dry.wav", 48000, 0.3, 1);
        write_signal(dir / "ir.wav", 48000, 0.2, 2);
        dir.write("box.json", box_scene_json());
    }
    // Refused with exit 2 and a message holding `parts`.
    void expect_refused(const std::string& args, std::initializer_list<const char*> parts) {
        const CommandResult r = run_ardent(args, dir.path(), 120);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
        expect_has(r.err, parts);
    }
    ScratchDir dir;
};

TEST_F(WritersKeepUsersData, AuralizeAndVoxelize) {
    const std::string dry = read_text(dir / "dry.wav");
    ASSERT_EQ(::mkfifo((dir / "fifo.wav").c_str(), 0644), 0);
    ASSERT_EQ(::mkfifo((dir / "fifo.png").c_str(), 0644), 0);
    users_folder(dir, "folder.wav");
    expect_refused("auralize dry.wav ir.wav -o fifo.wav --force", {"fifo.wav", "a FIFO"});
    expect_refused("auralize dry.wav ir.wav -o folder.wav --force", {"folder.wav", "a folder"});
    // Its own input, however it is spelt.
    expect_refused("auralize dry.wav ir.wav -o ./dry.wav --force",
                   {"dry.wav", "an input of this command"});
    expect_refused("auralize dry.wav ir.wav -o ir.wav --force", {"ir.wav", "an input"});
    expect_refused("voxelize box.json -o fifo.png --force", {"fifo.png", "a FIFO"});
    EXPECT_EQ(read_text(dir / "dry.wav"), dry);
    struct stat st {};
    ASSERT_EQ(::lstat((dir / "fifo.wav").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    EXPECT_EQ(read_text(dir / "folder.wav" / "notes.txt"), "mine");

    // A run holding the output's lock: a second one is refused at once, naming the holder.
    {
        const OutputLock held(dir / "new.wav", "ardent auralize");
        expect_refused("auralize dry.wav ir.wav -o new.wav",
                       {"another ardent auralize", "new.wav"});
    }
    // And a run that may write does, leaving nothing but its output.
    const CommandResult r = run_ardent("auralize dry.wav ir.wav -o new.wav", dir.path(), 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(fs::exists(dir / "new.wav.lock"));
    EXPECT_EQ(dir.listing(),
              "box.json\ndry.wav\nfifo.png\nfifo.wav\nfolder.wav\nfolder.wav/notes.txt\nir.wav\n"
              "new.wav\n");
}

TEST_F(WritersKeepUsersData, AnalyzeMapNeverReplacesAUsersFolder) {
    // A small grid run (0.2 s at 400 Hz).
    dir.write("grid.json", box_scene_json(R"({"max_frequency": 400, "duration": 0.2,
        "band": "wave"}, "listener_grid": {"spacing_m": 1.0})"));
    const CommandResult sim = run_ardent("simulate grid.json -o run --quiet", dir.path(), 300);
    ASSERT_EQ(sim.exit_code, 0) << sim.err;
    users_folder(dir, "mine");
    dir.write("file.txt", "mine");
    expect_refused("analyze --map run/grid/S1.h5 -o mine --force",
                   {"mine", "notes.txt", "ardent analyze did not write"});
    expect_refused("analyze --map run/grid/S1.h5 -o file.txt --force", {"file.txt", "not a"});
    expect_refused("analyze --map run/grid/S1.h5 -o . --force", {"'.'"});
    expect_refused("analyze --map run/grid/S1.h5 -o .. --force", {"'..'"});
    expect_refused("analyze --map run/grid/S1.h5 -o run --force", {"run", "an input"});
    EXPECT_EQ(read_text(dir / "mine" / "notes.txt"), "mine");
    EXPECT_EQ(read_text(dir / "file.txt"), "mine");
    EXPECT_FALSE(fs::exists(dir / "..lock"));  // no lock file beside what cannot be an output
    EXPECT_TRUE(fs::exists(dir / "run" / "grid" / "S1.h5"));

    // Its own folder of maps is replaced with --force, and only that.
    CommandResult r = run_ardent("analyze --map run/grid/S1.h5 -o maps", dir.path(), 300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_ardent("analyze --map run/grid/S1.h5 -o maps --force", dir.path(), 300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "maps" / "map.csv"));
    dir.write("maps/mine.txt", "mine");
    expect_refused("analyze --map run/grid/S1.h5 -o maps --force", {"mine.txt"});
    EXPECT_EQ(read_text(dir / "maps" / "mine.txt"), "mine");
}

TEST_F(WritersKeepUsersData, SceneSaveNeverReplacesADevice) {
    const Scene scene = load_scene(dir / "box.json");
    OutputRules replace;
    replace.replace = true;
    ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0644), 0);
    EXPECT_THROW(save_scene(scene, dir / "fifo.json", replace), InputError);
    EXPECT_THROW(save_scene(scene, "/dev/full", replace), InputError);
    struct stat st {};
    ASSERT_EQ(::lstat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    ASSERT_EQ(::lstat((dir / "fifo.json").c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// Two runs of one scene give the same bytes in every IR and grid file (no time stamps in the WAV's
// PEAK chunk or HDF5's object headers), so that cmp and checksums work.
TEST_F(WritersKeepUsersData, TwoRunsWriteTheSameBytes) {
    dir.write("grid.json", box_scene_json(R"({"max_frequency": 400, "duration": 0.2,
        "band": "wave"}, "listener_grid": {"spacing_m": 1.0})"));
    for (const char* out : {"a", "b"}) {
        const CommandResult r =
            run_ardent(std::string("simulate grid.json -o ") + out + " --quiet", dir.path(), 300);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        if (out[0] == 'a') sleep(1);  // a time stamp in seconds would differ
    }
    size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir / "a")) {
        if (!e.is_regular_file() || e.path().filename() == "result.json") continue;
        const fs::path twin = dir / "b" / fs::relative(e.path(), dir / "a");
        EXPECT_EQ(read_text(e.path()), read_text(twin)) << e.path() << " differs";
        ++files;
    }
    EXPECT_GE(files, 3u);  // ir/, ambix/ and grid/
}

// ---- signals ----------------------------------------------------------------------------------

// `ardent simulate` of a run long enough to be stopped (a few seconds on 2 cores), in `cwd`,
// stderr to err.txt; `file_limit` > 0: that ulimit -f in bytes.
pid_t start_simulate(const fs::path& cwd, rlim_t file_limit = 0) {
    const pid_t pid = fork();
    if (pid == 0) {
        if (chdir(cwd.c_str()) != 0) _exit(127);
        const int err = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(err, 2);
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        if (file_limit > 0) {
            const rlimit limit{file_limit, file_limit};
            setrlimit(RLIMIT_FSIZE, &limit);
        }
        execl(ARDENT_CLI, ARDENT_CLI, "simulate", "room.json", "-o", "out", "--quiet",
              static_cast<char*>(nullptr));
        _exit(127);
    }
    return pid;
}

int exit_code(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// SIGHUP (the terminal closed), SIGPIPE (the reader went away) and SIGTERM end a run as Ctrl-C
// does: a message, exit 128 + the signal, nothing left (they used to kill it and leave
// out.tmp-<pid> and out.lock).
TEST(Signals, HangupPipeAndTermEndARunCleanly) {
    for (const int sig : {SIGHUP, SIGPIPE, SIGTERM}) {
        SCOPED_TRACE(strsignal(sig));
        ScratchDir dir;
        dir.write("room.json", box_scene_json(R"({"max_frequency": 700, "duration": 3})"));
        const pid_t pid = start_simulate(dir.path());
        // Started once its lock exists; then well inside the run.
        for (int i = 0; i < 1000 && !fs::exists(dir / "out.lock"); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        kill(pid, sig);
        EXPECT_EQ(exit_code(pid), 128 + sig);
        expect_has(read_text(dir / "err.txt"), {"interrupted; nothing was written"});
        EXPECT_EQ(dir.listing(), "err.txt\nroom.json\n");
    }
}

// A write past the file-size limit is a resources error naming the file (exit 3), and the run
// leaves nothing (it used to be killed by SIGXFSZ, then to crash in HDF5 at exit).
TEST(Signals, AFileSizeLimitIsAResourcesError) {
    ScratchDir dir;
    dir.write("room.json", box_scene_json(R"({"max_frequency": 500, "duration": 0.5},
        "listener_grid": {"spacing_m": 0.5})"));
    const pid_t pid = start_simulate(dir.path(), 100 * 1024);
    EXPECT_EQ(exit_code(pid), 3);
    expect_has(read_text(dir / "err.txt"),
               {"not enough resources: cannot write", "File too large"});
    EXPECT_EQ(dir.listing(), "err.txt\nroom.json\n");
}

}  // namespace
}  // namespace ardent::test
