// Bad input to `ardent auralize` through the real command line, in the style of
// test_bad_input.cpp: every case exits with 2, says on stderr which file or option is wrong and
// how, and writes nothing (the scratch directory is unchanged).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/hrtf.h"
#include "grid_fixture.h"
#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;

// A PCM WAV file's bytes with whatever header fields the test wants, however wrong.
std::string wav_bytes(std::uint16_t channels, std::uint32_t rate, std::uint16_t bits,
                      const std::vector<std::int16_t>& samples) {
    std::string s;
    const auto u32 = [&](std::uint32_t v) {
        for (int i = 0; i < 4; ++i)
            s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    };
    const auto u16 = [&](std::uint16_t v) {
        s.push_back(static_cast<char>(v & 0xff));
        s.push_back(static_cast<char>(v >> 8));
    };
    const auto data_bytes = static_cast<std::uint32_t>(samples.size() * 2);
    s += "RIFF";
    u32(36 + data_bytes);
    s += "WAVEfmt ";
    u32(16);
    u16(1);  // PCM
    u16(channels);
    u32(rate);
    u32(rate * channels * (bits / 8u));
    u16(static_cast<std::uint16_t>(channels * (bits / 8u)));
    u16(bits);
    s += "data";
    u32(data_bytes);
    for (std::int16_t v : samples)
        u16(static_cast<std::uint16_t>(v));
    return s;
}

class AuralizeBadInput : public ::testing::Test {
  protected:
    ScratchDir dir;

    void SetUp() override {
        audio::Audio a;
        a.sample_rate = 48000;
        a.samples.assign(4800, 0.1f);
        audio::write_wav_float(dir / "dry.wav", a);
        a.samples.assign(480, 0.0f);
        a.samples[10] = 0.5f;
        audio::write_wav_float(dir / "ir.wav", a);
        const double d = 0.5;
        ASSERT_TRUE(write_grid_file(
            dir / "grid.h5", plane_wave_grid({1, 0, 0}, {1, 1, 1}, d, 48000, 480), 48000, d));
    }

    void expect_rejected(const std::string& args, std::initializer_list<std::string> needles) {
        SCOPED_TRACE("ardent auralize " + args);
        const std::string before = dir.listing();
        const CommandResult r = run_ardent("auralize " + args, dir.path(), 60);
        EXPECT_EQ(r.exit_code, 2) << "stderr: " << r.err << "\nstdout: " << r.out;
        for (const std::string& n : needles)
            EXPECT_NE(r.err.find(n), std::string::npos)
                << "stderr lacks \"" << n << "\": " << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_EQ(dir.listing(), before) << "something was written";
    }
};

TEST_F(AuralizeBadInput, BaselineIsAccepted) {
    const CommandResult r = run_ardent("auralize dry.wav ir.wav -o out.wav", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "out.wav"));
}

TEST_F(AuralizeBadInput, MissingFiles) {
    expect_rejected("nothing.wav ir.wav -o out.wav", {"nothing.wav", "no such file"});
    expect_rejected("dry.wav nothing.wav -o out.wav", {"nothing.wav", "no such file"});
}

TEST_F(AuralizeBadInput, CorruptAudio) {
    dir.write("junk.wav", std::string(3000, 'x'));
    expect_rejected("junk.wav ir.wav -o out.wav", {"junk.wav", "as audio"});
    expect_rejected("dry.wav junk.wav -o out.wav", {"junk.wav", "as audio"});
    // A real header cut off inside the data: libsndfile reads what is there, so cut the header.
    std::string wav = wav_bytes(1, 48000, 16, std::vector<std::int16_t>(100, 1000));
    dir.write("cut.wav", wav.substr(0, 20));
    expect_rejected("cut.wav ir.wav -o out.wav", {"cut.wav"});
}

TEST_F(AuralizeBadInput, EmptyAudio) {
    dir.write("empty.wav", wav_bytes(1, 48000, 16, {}));
    expect_rejected("empty.wav ir.wav -o out.wav", {"dry signal", "empty.wav", "empty"});
    expect_rejected("dry.wav empty.wav -o out.wav", {"impulse response", "empty.wav", "empty"});
    dir.write("zero_bytes.wav", "");
    expect_rejected("zero_bytes.wav ir.wav -o out.wav", {"zero_bytes.wav"});
}

TEST_F(AuralizeBadInput, ZeroChannels) {
    dir.write("nochannels.wav", wav_bytes(0, 48000, 16, std::vector<std::int16_t>(100, 1000)));
    expect_rejected("nochannels.wav ir.wav -o out.wav", {"nochannels.wav"});
    expect_rejected("dry.wav nochannels.wav -o out.wav", {"nochannels.wav"});
}

TEST_F(AuralizeBadInput, AbsurdSampleRates) {
    dir.write("slow.wav", wav_bytes(1, 3, 16, std::vector<std::int16_t>(100, 1000)));
    dir.write("fast.wav", wav_bytes(1, 5000000, 16, std::vector<std::int16_t>(100, 1000)));
    expect_rejected("slow.wav ir.wav -o out.wav", {"slow.wav", "sample rate of 3 Hz"});
    expect_rejected("dry.wav fast.wav -o out.wav", {"fast.wav", "5000000 Hz"});
}

TEST_F(AuralizeBadInput, NonFiniteSamples) {
    audio::Audio a;
    a.sample_rate = 48000;
    a.samples.assign(100, 0.0f);
    a.samples[42] = std::numeric_limits<float>::quiet_NaN();
    audio::write_wav_float(dir / "nan.wav", a);
    expect_rejected("nan.wav ir.wav -o out.wav", {"nan.wav", "NaN", "frame 42"});
}

TEST_F(AuralizeBadInput, SofaFilesThatAreNotSofa) {
    dir.write("text.sofa", "SOFA? no.");
    expect_rejected("dry.wav grid.h5 --listener 1,1,1 --hrtf text.sofa -o out.wav",
                    {"text.sofa", "not a SOFA file"});
    expect_rejected("dry.wav grid.h5 --listener 1,1,1 --hrtf grid.h5 -o out.wav",
                    {"HRTF set", "grid.h5"});
    expect_rejected("dry.wav grid.h5 --listener 1,1,1 --hrtf none.sofa -o out.wav",
                    {"none.sofa", "no such file"});
}

TEST_F(AuralizeBadInput, ListenerOutsideTheGridOrMissing) {
    expect_rejected("dry.wav grid.h5 --listener 9,9,9 -o out.wav",
                    {"grid.h5", "outside the listener grid", "(9.000, 9.000, 9.000)"});
    expect_rejected("dry.wav grid.h5 --listener 1e308,1,-2e7 -o out.wav",
                    {"listener (1e+308, 1.000, -2e+07) is outside the listener grid"});
    expect_rejected("dry.wav grid.h5 -o out.wav", {"grid.h5", "--listener"});
    expect_rejected("dry.wav grid.h5 --listener 1,1 -o out.wav", {"--listener", "1,1"});
    expect_rejected("dry.wav grid.h5 --listener 1,nan,1 -o out.wav", {"--listener"});
    expect_rejected("dry.wav ir.wav --listener 1,1,1 -o out.wav", {"--listener", "ir.wav"});
}

// A damaged grid file is reported as one, with or without --listener: random bytes named .h5 (no
// HDF5 signature left) were read as audio ("cannot read 'x.h5' as audio").
TEST_F(AuralizeBadInput, CorruptGrid) {
    const std::string not_ours = " is not a readable Ardent grid file";
    dir.write("bad.h5", std::string("\x89HDF\r\n\x1a\n", 8) + std::string(500, '\0'));
    expect_rejected("dry.wav bad.h5 --listener 1,1,1 -o out.wav",
                    {"'bad.h5'" + not_ours, "listener grid", "HDF5 cannot open it"});
    std::ifstream in(dir / "grid.h5", std::ios::binary);
    const std::string grid{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    dir.write("cut.h5", grid.substr(0, grid.size() / 3));
    std::string noise(4096, '\0');
    for (size_t i = 0; i < noise.size(); ++i)
        noise[i] = static_cast<char>((i * 2654435761u) >> 13);
    dir.write("noise.h5", noise);
    for (const char* name : {"cut.h5", "noise.h5"})
        for (const char* listener : {" --listener 1,1,1", ""}) {
            const auto args = std::string("dry.wav ") + name + listener + " -o out.wav";
            expect_rejected(args, {"'" + std::string(name) + "'" + not_ours});
        }
}

// Every file auralize reads, given as a FIFO (which hung it: opening one waits for a writer), a
// device or a folder: refused before it is opened, by name and kind.
TEST_F(AuralizeBadInput, FifosDevicesAndFoldersAsInputs) {
    for (const char* name : {"pipe.wav", "pipe.h5", "pipe.sofa"})
        ASSERT_EQ(::mkfifo((dir / name).c_str(), 0644), 0);
    for (const char* name : {"folder.wav", "folder.h5", "folder.sofa"})
        fs::create_directory(dir / name);
    const std::string fifo = ": it is a FIFO (named pipe), not a file";
    expect_rejected("pipe.wav ir.wav -o out.wav", {"'pipe.wav'" + fifo});
    expect_rejected("dry.wav pipe.wav -o out.wav", {"'pipe.wav'" + fifo});
    expect_rejected("dry.wav pipe.h5 --listener 1,1,1 -o out.wav", {"'pipe.h5'", fifo});
    expect_rejected("dry.wav grid.h5 --listener 1,1,1 --hrtf pipe.sofa -o out.wav",
                    {"HRTF set 'pipe.sofa'" + fifo});
    expect_rejected("/dev/zero ir.wav -o out.wav", {"'/dev/zero': it is a character device"});
    expect_rejected("folder.wav ir.wav -o out.wav", {"'folder.wav': it is a directory"});
    expect_rejected("dry.wav folder.h5 --listener 1,1,1 -o out.wav",
                    {"'folder.h5'", "it is a directory"});
    expect_rejected("dry.wav grid.h5 --listener 1,1,1 --hrtf folder.sofa -o out.wav",
                    {"HRTF set 'folder.sofa': it is a directory"});
}

TEST_F(AuralizeBadInput, DirectionsNeeded) {
    expect_rejected("dry.wav ir.wav --hrtf /usr/share/libmysofa/default.sofa -o out.wav",
                    {"--hrtf", "ir.wav", "1 channel"});
    expect_rejected("dry.wav ir.wav --ambisonics -o out.wav", {"--ambisonics", "ir.wav"});
    expect_rejected("dry.wav grid.h5 --listener 1,1,1 --ambisonics --hrtf x.sofa -o out.wav",
                    {"--ambisonics", "--hrtf"});
    expect_rejected("dry.wav grid.h5 --listener 1,1,1 --facing 0,0,1 -o out.wav",
                    {"--facing", "--up", "parallel"});
}

TEST_F(AuralizeBadInput, BinauralOption) {
    audio::Audio ambix;
    ambix.channels = 4;
    ambix.sample_rate = 48000;
    ambix.samples.assign(4 * 480, 0.0f);
    ambix.samples[40] = ambix.samples[41] = 0.5f;
    audio::write_wav_float(dir / "ambix.wav", ambix);
    expect_rejected("dry.wav ambix.wav --binaural --ambisonics -o out.wav",
                    {"--ambisonics and --binaural exclude each other"});
    expect_rejected("dry.wav grid.h5 --listener 1,1,1 --ambisonics --binaural -o out.wav",
                    {"--ambisonics and --binaural exclude each other"});
    expect_rejected("dry.wav ir.wav --binaural -o out.wav",
                    {"--binaural needs directions", "ir.wav", "1 channel", "4-channel AmbiX"});
    // Accepted: a grid is binaural anyway.
    if (!fs::exists(auralize::HrtfSet::default_file())) GTEST_SKIP() << "no default SOFA set";
    const CommandResult r =
        run_ardent("auralize dry.wav grid.h5 --listener 1,1,1 --binaural -o out.wav", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "out.wav"));
}

TEST_F(AuralizeBadInput, OutputProblems) {
    dir.write("taken.wav", "mine");
    expect_rejected("dry.wav ir.wav -o taken.wav", {"taken.wav", "already exists", "--force"});
    expect_rejected("dry.wav ir.wav -o no/such/dir/out.wav", {"no/such/dir", "does not exist"});
    expect_rejected("dry.wav ir.wav -o out.mp3", {"out.mp3", "unknown output format", ".flac"});
    expect_rejected("dry.wav ir.wav", {"--output"});
    expect_rejected("dry.wav ir.wav -o out.wav --normalize median", {"--normalize"});
}

}  // namespace
}  // namespace ardent::test
