// The FFT plan cache ($XDG_CACHE_HOME/ardent): created private, filled by the first measured
// plan of a size, read back by later runs; a corrupt file is reported and replaced, an unsafe or
// unusable directory is reported and not used, and `ardent auralize` works in every case (with
// --no-fft-cache it does not touch the cache at all).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/fft_convolution.h"
#include "ardent/auralize/fft_plan_cache.h"
#include "scoped_env.h"
#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;
using auralize::enable_plan_cache;
using auralize::plan_cache_file;

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& w : v)
        s += w + "\n";
    return s;
}

// A measured convolution of a size no earlier test planned (FFTW keeps wisdom per process).
void convolve_measured(size_t filter_len) {
    const std::vector<float> x(3 * filter_len, 0.5f), h(filter_len, 0.25f);
    auralize::convolve(x, h, {.measure_fft = true});
}

TEST(PlanCache, DefaultDirectoryFollowsXdg) {
    {
        ScopedEnv x("XDG_CACHE_HOME", "/tmp/xdg-here");
        EXPECT_EQ(auralize::default_plan_cache_dir(), fs::path("/tmp/xdg-here/ardent"));
    }
    {
        // A relative XDG_CACHE_HOME is ignored (XDG base directory specification).
        ScopedEnv x("XDG_CACHE_HOME", "relative/cache");
        ScopedEnv h("HOME", "/home/someone");
        EXPECT_EQ(auralize::default_plan_cache_dir(), fs::path("/home/someone/.cache/ardent"));
    }
}

TEST(PlanCache, MeasuredPlansAreSavedPrivatelyAndReadBack) {
    ScratchDir dir;
    const fs::path cache = dir / "cache" / "ardent";
    EXPECT_TRUE(enable_plan_cache(cache).empty());
    ASSERT_TRUE(auralize::plan_cache_enabled());
    struct stat st {};
    ASSERT_EQ(::stat(cache.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ASSERT_EQ(::stat((dir / "cache").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);  // created components are private too
    convolve_measured(301);
    const auto report = auralize::take_plan_cache_report();
    EXPECT_EQ(report.measured, 1u);
    EXPECT_TRUE(report.warnings.empty()) << joined(report.warnings);
    const std::string saved = read_text(plan_cache_file(cache));
    EXPECT_NE(saved.find("fftw"), std::string::npos) << saved;
    // The same size again: from the wisdom, nothing measured or written.
    convolve_measured(301);
    EXPECT_EQ(auralize::take_plan_cache_report().measured, 0u);
    // Reading the file back in is clean; no temporary file is left.
    EXPECT_TRUE(enable_plan_cache(cache).empty());
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(cache)) {
        (void)e;
        ++files;
    }
    EXPECT_EQ(files, 1u);
    auralize::disable_plan_cache();
}

// Learning: an estimated plan now and the size noted; once measured (what the background process
// does), the same size comes from the cache and is not noted again.
TEST(PlanCache, LearningNotesNewSizesAndUsesMeasuredOnes) {
    ScratchDir dir;
    const fs::path cache = dir / "cache" / "ardent";
    EXPECT_TRUE(enable_plan_cache(cache).empty());
    const size_t filter_len = 2999;  // a transform size no other test plans (FFTW keeps wisdom)
    const std::vector<float> x(3 * filter_len, 0.5f), h(filter_len, 0.25f);
    const std::vector<float> first = auralize::convolve(x, h, {.learn_fft = true});
    auto report = auralize::take_plan_cache_report();
    EXPECT_EQ(report.measured, 0u);
    ASSERT_EQ(report.to_measure.size(), 1u);
    EXPECT_FALSE(fs::exists(plan_cache_file(cache)));  // nothing measured, nothing written
    EXPECT_EQ(auralize::measure_plans(report.to_measure), 1u);
    EXPECT_EQ(auralize::take_plan_cache_report().measured, 1u);
    EXPECT_TRUE(fs::exists(plan_cache_file(cache)));
    const std::vector<float> again = auralize::convolve(x, h, {.learn_fft = true});
    report = auralize::take_plan_cache_report();
    EXPECT_TRUE(report.to_measure.empty());
    EXPECT_EQ(report.measured, 0u);
    ASSERT_EQ(again.size(), first.size());
    for (size_t i = 0; i < first.size(); ++i)
        ASSERT_NEAR(again[i], first[i], 1e-5f * 0.25f * 0.5f * static_cast<float>(filter_len)) << i;
    auralize::disable_plan_cache();
}

TEST(PlanCache, CorruptFileIsReportedIgnoredAndReplaced) {
    ScratchDir dir;
    const fs::path cache = dir / "ardent";
    fs::create_directories(cache);
    fs::permissions(cache, fs::perms::owner_all);
    for (const std::string& junk : {std::string("(fftw-3.3.10 fftwf_wisdom #x1 (garbage"),
                                    std::string("\x89PNG not wisdom at all"), std::string("")}) {
        SCOPED_TRACE(junk);
        { std::ofstream(plan_cache_file(cache), std::ios::binary) << junk; }
        const auto warnings = enable_plan_cache(cache);
        if (junk.empty()) {
            // An empty file is no wisdom; FFTW accepts it as such.
            continue;
        }
        ASSERT_EQ(warnings.size(), 1u) << joined(warnings);
        EXPECT_NE(warnings[0].find(plan_cache_file(cache).string()), std::string::npos);
        EXPECT_NE(warnings[0].find("not valid FFTW wisdom"), std::string::npos) << warnings[0];
        EXPECT_TRUE(auralize::plan_cache_enabled());
    }
    // Convolution still works, and the next measurement replaces the file with valid wisdom.
    convolve_measured(517);
    EXPECT_EQ(auralize::take_plan_cache_report().measured, 1u);
    EXPECT_TRUE(enable_plan_cache(cache).empty());
    auralize::disable_plan_cache();
}

TEST(PlanCache, UnsafeOrUnusableDirectoriesAreNotUsed) {
    ScratchDir dir;
    // A symbolic link (another user could point it anywhere).
    fs::create_directories(dir / "real");
    fs::create_symlink(dir / "real", dir / "link");
    auto w = enable_plan_cache(dir / "link");
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("symbolic link"), std::string::npos) << w[0];
    EXPECT_FALSE(auralize::plan_cache_enabled());
    // Writable by others.
    fs::create_directories(dir / "open");
    fs::permissions(dir / "open", fs::perms::all);
    w = enable_plan_cache(dir / "open");
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("writable by others"), std::string::npos) << w[0];
    EXPECT_FALSE(auralize::plan_cache_enabled());
    // A file where the directory should be.
    dir.write("file", "x");
    w = enable_plan_cache(dir / "file" / "ardent");
    ASSERT_EQ(w.size(), 1u);
    EXPECT_NE(w[0].find("cannot create"), std::string::npos) << w[0];
    EXPECT_FALSE(auralize::plan_cache_enabled());
    // No directory at all.
    w = enable_plan_cache({});
    ASSERT_EQ(w.size(), 1u);
    EXPECT_FALSE(auralize::plan_cache_enabled());
    // Convolution is unaffected.
    convolve_measured(433);
}

// The command line: the first run estimates and has the size measured in the background, the
// second reads the cache, a corrupt cache gives a warning and a correct result, --no-fft-cache
// leaves no trace.
TEST(PlanCache, AuralizeUsesTheCacheAndNeverNeedsIt) {
    ScratchDir dir;
    audio::Audio dry, ir;
    dry.sample_rate = ir.sample_rate = 48000;
    dry.channels = 2;
    ir.channels = 1;
    dry.samples.assign(2 * 4000, 0.0f);
    for (size_t i = 0; i < dry.samples.size(); i += 37)
        dry.samples[i] = 0.5f;
    ir.samples.assign(777, 0.0f);
    ir.samples[0] = 1.0f;
    ir.samples[500] = 0.25f;
    audio::write_wav_float(dir / "dry.wav", dry);
    audio::write_wav_float(dir / "ir.wav", ir);
    const fs::path xdg = dir / "xdg";
    ScopedEnv x("XDG_CACHE_HOME", xdg.string());
    const fs::path file = plan_cache_file(xdg / "ardent");
    // The background process writes the file within a few seconds (a small size here).
    const auto wait_for = [&](const auto& ready) {
        for (int i = 0; i < 600 && !ready(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return ready();
    };

    auto r = run_ardent("auralize dry.wav ir.wav -o a.wav --normalize none", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("measured in the background"), std::string::npos) << r.out;
    ASSERT_TRUE(wait_for([&] { return fs::exists(file); })) << "no " << file;
    const std::string wisdom = read_text(file);
    EXPECT_NE(wisdom.find("fftwf_wisdom"), std::string::npos) << wisdom;

    r = run_ardent("auralize dry.wav ir.wav -o b.wav --normalize none", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("measured in the background"), std::string::npos) << r.out;
    EXPECT_EQ(read_text(file), wisdom);
    const auto a = audio::read_audio(dir / "a.wav"), b = audio::read_audio(dir / "b.wav");
    ASSERT_EQ(a.samples.size(), b.samples.size());
    for (size_t i = 0; i < a.samples.size(); ++i)  // estimated and measured plans round alike
        ASSERT_NEAR(b.samples[i], a.samples[i], 1e-6f) << i;

    const std::string broken = "(fftw-3.3.10 fftwf_wisdom #x12 (broken";
    { std::ofstream(file, std::ios::binary) << broken; }
    r = run_ardent("auralize dry.wav ir.wav -o c.wav --normalize none", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: ignoring the FFT plan cache"), std::string::npos) << r.err;
    const auto c = audio::read_audio(dir / "c.wav");
    ASSERT_EQ(c.samples.size(), a.samples.size());
    for (size_t i = 0; i < a.samples.size(); ++i)
        ASSERT_NEAR(c.samples[i], a.samples[i], 1e-6f) << i;
    EXPECT_TRUE(wait_for([&] { return read_text(file) != broken; }));  // measured again
    EXPECT_NE(read_text(file).find("fftwf_wisdom"), std::string::npos);

    fs::remove_all(xdg);
    r = run_ardent("auralize dry.wav ir.wav -o d.wav --normalize none --no-fft-cache", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(fs::exists(xdg));
    EXPECT_EQ(r.out.find("measured in the background"), std::string::npos) << r.out;

    // An unusable cache location: a warning, and the rendering still works.
    dir.write("xdg", "a file, not a directory");
    r = run_ardent("auralize dry.wav ir.wav -o e.wav --normalize none", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("FFT plan cache not used"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(dir / "e.wav"));
}

}  // namespace
}  // namespace ardent::test
