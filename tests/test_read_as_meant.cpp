// Input that was read, but not as its author meant: a model turned on import, an HRTF set or a
// grid whose numbers cannot be right, numbers in hexadecimal, options or keys that were silently
// ignored, a result.json that belongs to another IR. Each case goes through the real `ardent`
// command where it can: bad input exits with 2 and says which file, key or option is wrong, and
// what is merely doubtful is said on stderr as a warning.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/fft_plan_cache.h"
#include "ardent/auralize/hrtf.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/preprocess/mesh_import.h"
#include "grid_fixture.h"
#include "scoped_env.h"
#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

class ReadAsMeant : public ::testing::Test {
  protected:
    ScratchDir dir;

    // Runs `ardent ARGS`; checks the exit code, that stderr holds each of `needles`, and that
    // nothing was written.
    CommandResult expect_rejected(const std::string& args, int code,
                                  std::initializer_list<std::string> needles, int timeout_s = 60) {
        SCOPED_TRACE("ardent " + args);
        const std::string before = dir.listing();
        CommandResult r = run_ardent(args, dir.path(), timeout_s);
        EXPECT_EQ(r.exit_code, code) << "stderr: " << r.err << "\nstdout: " << r.out;
        for (const std::string& n : needles)
            EXPECT_NE(r.err.find(n), std::string::npos)
                << "stderr lacks \"" << n << "\": " << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_EQ(dir.listing(), before) << "something was written";
        return r;
    }
};

// --- 1. a COLLADA model's <up_axis> does not turn it --------------------------------------------

TEST_F(ReadAsMeant, ColladaUpAxisDoesNotRotateTheModel) {
    const std::string yup = read_text(source_dir() / "tests" / "fixtures" / "lshape.dae");
    const std::string up = "<up_axis>Y_UP</up_axis>";
    ASSERT_NE(yup.find(up), std::string::npos);
    dir.write("y.dae", yup);
    dir.write("z.dae", replaced(yup, up, "<up_axis>Z_UP</up_axis>"));
    dir.write("x.dae", replaced(yup, up, "<up_axis>X_UP</up_axis>"));
    dir.write("none.dae", replaced(yup, up, ""));
    const Box3 want = import_mesh(dir / "y.dae", 1.0).bounds();
    for (const char* name : {"z.dae", "x.dae", "none.dae"}) {
        SCOPED_TRACE(name);
        const Box3 got = import_mesh(dir / name, 1.0).bounds();
        EXPECT_NEAR(got.lo.x, want.lo.x, 1e-9);
        EXPECT_NEAR(got.lo.y, want.lo.y, 1e-9);
        EXPECT_NEAR(got.lo.z, want.lo.z, 1e-9);
        EXPECT_NEAR(got.hi.x, want.hi.x, 1e-9);
        EXPECT_NEAR(got.hi.y, want.hi.y, 1e-9);
        EXPECT_NEAR(got.hi.z, want.hi.z, 1e-9);
    }
    // Through the command: a source at a height of 1.5 m (z) lies in the unturned room only.
    dir.write("s.json", R"({"format": "ardent-scene/1", "geometry": {"mesh": "z.dae"},
        "materials": {"m": {"absorption": 0.2}}, "surfaces": {"*": "m"},
        "sources": [{"name": "S", "position": [1, 1, 1.5]}],
        "simulation": {"max_frequency": 200}})");
    const CommandResult r = run_ardent("info s.json", dir.path(), 120);
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

// --- 2. HRTF sets whose numbers cannot be right ------------------------------------------------

// Overwrites every value of dataset `name` of the HDF5 (SOFA) file with `value`, in place.
bool overwrite_dataset(const fs::path& file, const char* name, double value) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) return false;
    bool ok = false;
    const hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    if (ds >= 0) {
        const hid_t space = H5Dget_space(ds);
        const auto n = static_cast<size_t>(H5Sget_simple_extent_npoints(space));
        const std::vector<double> v(n, value);
        ok = H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0;
        H5Sclose(space);
        H5Dclose(ds);
    }
    H5Fclose(f);
    return ok;
}

class ReadAsMeantHrtf : public ReadAsMeant {
  protected:
    void SetUp() override {
        if (!fs::exists(auralize::HrtfSet::default_file())) GTEST_SKIP() << "no default SOFA set";
        audio::Audio a;
        a.sample_rate = 48000;
        a.samples.assign(4800, 0.1f);
        audio::write_wav_float(dir / "dry.wav", a);
        const double d = 0.5;
        ASSERT_TRUE(write_grid_file(
            dir / "grid.h5", plane_wave_grid({1, 0, 0}, {1, 1, 1}, d, 48000, 480), 48000, d));
    }
    // A copy of the default set with dataset `name` set to `value` throughout.
    void write_set(const std::string& file, const char* name, double value) {
        fs::copy_file(auralize::HrtfSet::default_file(), dir / file);
        fs::permissions(dir / file, fs::perms::owner_write, fs::perm_options::add);
        ASSERT_TRUE(overwrite_dataset(dir / file, name, value)) << name;
    }
    std::string binaural(const std::string& sofa) {
        return "auralize dry.wav grid.h5 --listener 1,1,1 --hrtf " + sofa + " -o out.wav";
    }
};

TEST_F(ReadAsMeantHrtf, SilentOrNaNSetsAreRefused) {
    write_set("zero.sofa", "Data.IR", 0.0);
    write_set("nan.sofa", "Data.IR", std::nan(""));
    expect_rejected(binaural("zero.sofa"), 2, {"HRTF set 'zero.sofa'", "Data.IR", "all zero"});
    expect_rejected(binaural("nan.sofa"), 2, {"HRTF set 'nan.sofa'", "Data.IR", "NaN"});
}

TEST_F(ReadAsMeantHrtf, SampleRatesOutsideAudioAreRefusedBeforeResampling) {
    write_set("slow.sofa", "Data.SamplingRate", 1.0);
    write_set("fast.sofa", "Data.SamplingRate", 1e7);
    // 1 Hz took libmysofa's resampler minutes and 0.9 GB; refused at once.
    expect_rejected(binaural("slow.sofa"), 2,
                    {"HRTF set 'slow.sofa'", "Data.SamplingRate", "1 Hz", "8000 to 768000 Hz"}, 20);
    expect_rejected(binaural("fast.sofa"), 2,
                    {"HRTF set 'fast.sofa'", "Data.SamplingRate", "1e+07 Hz"}, 20);
}

TEST_F(ReadAsMeantHrtf, DamagedSetsAreSaidInWords) {
    const std::string whole = read_text(auralize::HrtfSet::default_file());
    for (const size_t keep : {whole.size() / 2, size_t{4096}, size_t{600}}) {
        SCOPED_TRACE(keep);
        dir.write("cut.sofa", whole.substr(0, keep));
        const CommandResult r = expect_rejected(binaural("cut.sofa"), 2, {"HRTF set 'cut.sofa'"});
        EXPECT_EQ(r.err.find("libmysofa error"), std::string::npos) << r.err;
        fs::remove(dir / "cut.sofa");
    }
}

// --- 3. the FFT plan cache -------------------------------------------------------------------

TEST_F(ReadAsMeant, FifoAsThePlanCacheIsIgnored) {
    audio::Audio a;
    a.sample_rate = 48000;
    a.samples.assign(4800, 0.1f);
    audio::write_wav_float(dir / "dry.wav", a);
    a.samples.assign(480, 0.0f);
    a.samples[10] = 0.5f;
    audio::write_wav_float(dir / "ir.wav", a);
    const fs::path cache = dir / "cache" / "ardent";
    fs::create_directories(cache);
    fs::permissions(dir / "cache", fs::perms::owner_all, fs::perm_options::replace);
    fs::permissions(cache, fs::perms::owner_all, fs::perm_options::replace);
    const fs::path file = auralize::plan_cache_file(cache);
    ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
    const ScopedEnv env("XDG_CACHE_HOME", (dir / "cache").string());
    // Opening the FIFO waited for a writer: auralize hung for ever.
    const CommandResult r = run_ardent("auralize dry.wav ir.wav -o out.wav", dir.path(), 30);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("warning: ignoring the FFT plan cache '" + file.string() +
                         "': it is not a regular file"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(fs::exists(dir / "out.wav"));
}

// --- 4. listener grids whose sample rates cannot be right -------------------------------------

// Sets attribute `name` of the HDF5 file's root to `value` (created if absent).
bool set_attribute(const fs::path& file, const char* name, double value) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) return false;
    if (H5Aexists(f, name) > 0) H5Adelete(f, name);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(f, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
    const bool ok = a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &value) >= 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(space);
    return H5Fclose(f) >= 0 && ok;
}

TEST_F(ReadAsMeant, GridSampleRatesOutsideAudioAreRefused) {
    audio::Audio a;
    a.sample_rate = 48000;
    a.samples.assign(4800, 0.1f);
    audio::write_wav_float(dir / "dry.wav", a);
    const double d = 0.5;
    const auto pts = plane_wave_grid({1, 0, 0}, {1, 1, 1}, d, 48000, 480);
    ASSERT_TRUE(write_grid_file(dir / "fast.h5", pts, 1e12, d));
    ASSERT_TRUE(write_grid_file(dir / "slow.h5", pts, 1, d));
    // Format 3 stores the band at its own rate, with the rate its readers resample to beside.
    ASSERT_TRUE(write_grid_file(dir / "v3.h5", pts, 4800, d, "S1", "ardent-grid/3"));
    ASSERT_TRUE(set_attribute(dir / "v3.h5", "gradient_spacing", d));
    ASSERT_TRUE(set_attribute(dir / "v3.h5", "output_sample_rate", 1e12));
    for (const char* args :
         {"auralize dry.wav fast.h5 --listener 1,1,1 -o out.wav", "analyze --map fast.h5 -o maps"})
        expect_rejected(args, 2, {"'fast.h5'", "attribute 'sample_rate'", "1e+12 Hz"});
    expect_rejected("auralize dry.wav slow.h5 --listener 1,1,1 -o out.wav", 2,
                    {"'slow.h5'", "attribute 'sample_rate'", "1 Hz", "1000 to 768000 Hz"});
    expect_rejected("analyze --map v3.h5 -o maps", 2,
                    {"'v3.h5'", "attribute 'output_sample_rate'", "1e+12 Hz"});
    // A band rate may lie below audio rates, but not hold an IR longer than any simulation.
    const std::vector<GridPoint> one{{{1, 1, 1}, std::vector<float>(400000, 0.0f)}};
    ASSERT_TRUE(write_grid_file(dir / "long.h5", one, 100, d, "S1", "ardent-grid/3"));
    ASSERT_TRUE(set_attribute(dir / "long.h5", "output_sample_rate", 48000));
    expect_rejected("analyze --map long.h5 -o maps", 2,
                    {"'long.h5'", "/ir holds 4000 s", "at most 3600 s"});
    ASSERT_TRUE(set_attribute(dir / "long.h5", "sample_rate", 50));
    expect_rejected("analyze --map long.h5 -o maps", 2,
                    {"'long.h5'", "attribute 'sample_rate' is 50 Hz", "100 to 768000 Hz"});
}

// --- 5. numbers are decimal ------------------------------------------------------------------

std::string scene_with_absorption(const std::string& bands) {
    std::string s = box_scene_json();
    return replaced(s, R"("carpet": {"absorption": 0.3})",
                    R"("carpet": {"absorption": {)" + bands + "}}");
}

TEST_F(ReadAsMeant, BandKeysArePlainDecimalNumbers) {
    dir.write("ok.json", scene_with_absorption(R"("125": 0.1, "31.5": 0.2, "1000": 0.3)"));
    const CommandResult ok = run_ardent("info ok.json", dir.path(), 120);
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    // "0x10" was read as 16 Hz, "1e3" as 1000 Hz.
    for (const char* band : {"0x10", "1e3", "125.", ".5", "1.2.3", "+125", "0125x"}) {
        SCOPED_TRACE(band);
        dir.write("s.json", scene_with_absorption(std::string("\"") + band + "\": 0.1"));
        expect_rejected("info s.json", 2,
                        {"s.json: materials.carpet.absorption:",
                         std::string("band \"") + band + "\" is not a frequency"});
        fs::remove(dir / "s.json");
    }
    // A key of 5000 digits is quoted by its start only.
    dir.write("s.json", scene_with_absorption("\"" + std::string(5000, '7') + "\": 0.1"));
    const CommandResult r = expect_rejected("info s.json", 2, {"band \"77777", "…"});
    EXPECT_LT(r.err.size(), 400u) << r.err;
}

TEST_F(ReadAsMeant, NumberOptionsAreDecimal) {
    dir.write("s.json", box_scene_json());
    audio::Audio a;
    a.sample_rate = 48000;
    a.samples.assign(4800, 0.0f);
    a.samples[10] = 0.5f;
    audio::write_wav_float(dir / "ir.wav", a);
    // CLI11 read 0x12C as 300, 0b11 as 3, 0o17 as 15, and an integer's leading 0 as octal.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"info s.json --max-frequency 0x12C", "--max-frequency"},
        {"info s.json --ranks 0x2", "--ranks"},
        {"voxelize s.json --max-frequency 0b11 -o v.png", "--max-frequency"},
        {"voxelize s.json --slice z=0x1 -o v.png", "--slice"},
        {"simulate s.json -o out --max-frequency 0x12C", "--max-frequency"},
        {"simulate s.json -o out --duration 0x1", "--duration"},
        {"simulate s.json -o out --threads 0x2", "--threads"},
        {"simulate s.json -o out --checkpoint-every 0o17", "--checkpoint-every"},
        {"analyze ir.wav --max-frequency 0x12C", "--max-frequency"},
        {"analyze ir.wav --channel 0x1", "--channel"},
        {"analyze --map g.h5 -o maps --height 0x1", "--height"},
        {"analyze --map g.h5 -o maps --threads 0b1", "--threads"},
        {"auralize ir.wav ir.wav -o out.wav --threads 0x1", "--threads"},
        {"auralize ir.wav g.h5 --listener 0x1,1,1 -o out.wav", "--listener"},
        {"auralize ir.wav g.h5 --listener 1,1,1 --facing 1,0,0x0 -o out.wav", "--facing"},
        {"fft-plans 0x100", "SIZE"},
    };
    for (const auto& [args, option] : cases)
        expect_rejected(args, 2, {option});
    // A value of 5000 digits is quoted by its start only.
    const std::string huge(5000, '9');
    for (const std::string& args :
         {"info s.json --max-frequency " + huge, "simulate s.json -o out --threads " + huge,
          "analyze ir.wav --channel " + huge,
          "simulate s.json -o out --checkpoint-every " + huge}) {
        const CommandResult r = expect_rejected(args, 2, {"99999999", "…"});
        EXPECT_LT(r.err.size(), 400u) << r.err;
    }
    // Decimal numbers still read, leading zeros as decimal.
    const CommandResult r =
        run_ardent("analyze ir.wav --channel 01 --max-frequency 2e3 --json", dir.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

// --- 6. keys and options that were ignored or overridden without a word -----------------------

TEST_F(ReadAsMeant, ScaleBesideABoxIsRefused) {
    dir.write("s.json", replaced(box_scene_json(), R"("box": [6.0, 4.0, 3.0])",
                                 R"("box": [6.0, 4.0, 3.0], "scale": 0.001)"));
    expect_rejected("info s.json", 2, {"s.json: geometry.scale:", "mesh file only"});
}

TEST_F(ReadAsMeant, ContradictingOrMeaninglessAnalyzeOptionsAreRefused) {
    audio::Audio a;
    a.sample_rate = 48000;
    a.samples.assign(4800, 0.0f);
    a.samples[10] = 0.5f;
    audio::write_wav_float(dir / "ir.wav", a);
    expect_rejected("analyze ir.wav --third-octave --bands octave", 2,
                    {"--third-octave", "--bands octave"});
    // docs/cli.md: a --max-frequency below every band is bad input; 0 meant "no limit".
    expect_rejected("analyze ir.wav --max-frequency 0", 2, {"--max-frequency"});
    expect_rejected("analyze --map g.h5 -o maps --max-frequency 0", 2, {"--max-frequency"});
    const CommandResult r =
        run_ardent("analyze ir.wav --third-octave --bands third --json", dir.path(), 60);
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

// --- 7. surface rules and materials that assign nothing ---------------------------------------

TEST_F(ReadAsMeant, SurfaceRulesThatMatchNothingAreWarnedAbout) {
    dir.write("clean.json", box_scene_json());
    const CommandResult clean = run_ardent("info clean.json", dir.path(), 120);
    EXPECT_EQ(clean.exit_code, 0) << clean.err;
    EXPECT_EQ(clean.err.find("warning"), std::string::npos) << clean.err;

    // The box's floor group is "floor": "Floor" matches nothing, and carpet is put nowhere.
    dir.write("s.json", replaced(box_scene_json(R"({"band": "wave", "max_frequency": 300, )"
                                                R"("duration": 0.05})"),
                                 R"("floor": "carpet")", R"("Floor": "carpet")"));
    const std::string rule = R"(warning: s.json: surfaces: "Floor" matches no surface group)";
    const std::string meant = R"(did you mean "floor"?)";
    const std::string unused = R"(warning: s.json: materials: "carpet" is used by no surface)";
    const CommandResult info = run_ardent("info s.json", dir.path(), 120);
    EXPECT_EQ(info.exit_code, 0) << info.err;
    for (const std::string& n : {rule, meant, unused})
        EXPECT_NE(info.err.find(n), std::string::npos) << info.err;

    const CommandResult sim =
        run_ardent("simulate s.json --threads 1 --quiet -o out", dir.path(), 300);
    ASSERT_EQ(sim.exit_code, 0) << sim.err;
    for (const std::string& n : {rule, meant, unused})
        EXPECT_NE(sim.err.find(n), std::string::npos) << sim.err;
    const std::string result = read_text(dir / "out" / "result.json");
    EXPECT_NE(result.find(R"("warnings": [)"), std::string::npos) << result;
    EXPECT_NE(result.find(R"(surfaces: \"Floor\" matches no surface group)"), std::string::npos);
    EXPECT_NE(result.find(R"(materials: \"carpet\" is used by no surface)"), std::string::npos);
}

// --- 8. degenerate scenes --------------------------------------------------------------------

TEST_F(ReadAsMeant, DurationShorterThanOneSampleIsRefused) {
    dir.write("s.json", box_scene_json(R"({"max_frequency": 300, "duration": 1e-6})"));
    expect_rejected("info s.json", 2,
                    {"s.json: simulation.duration:", "one output sample", "1/48000 s"});
    dir.write("ok.json", box_scene_json(R"({"max_frequency": 300, "duration": 0.05})"));
    expect_rejected("simulate ok.json -o out --duration 1e-6", 2,
                    {"--duration", "one output sample"});
}

TEST_F(ReadAsMeant, ListenerGridWithNoPointIsRefused) {
    dir.write("s.json", box_scene_json(R"({"max_frequency": 300}, "listener_grid": )"
                                       R"({"spacing_m": 900})"));
    expect_rejected("info s.json", 2,
                    {"s.json: listener_grid.spacing_m:", "no point in the room's air"});
    dir.write("e.json", box_scene_json(R"({"max_frequency": 300}, "listener_grid": )"
                                       R"({"every": 1000})"));
    expect_rejected("info e.json", 2, {"e.json: listener_grid.every:", "no point"});
}

// --- 9. messages that hid what was wrong ------------------------------------------------------

TEST_F(ReadAsMeant, ControlCharactersInNamesAreEscaped) {
    // A NUL cut the message at it; an escape character would reach the terminal.
    dir.write("s.json", replaced(box_scene_json(), R"("name": "S1")", R"("name": "S\u0000x")"));
    expect_rejected("info s.json", 2,
                    {"s.json: sources[0].name:", R"("S\u0000x" is not a usable name)"});
    dir.write("m.json", replaced(box_scene_json(), R"("*": "plaster")", R"("*": "pl\u001baster")"));
    expect_rejected("info m.json", 2, {R"(material "pl\u001baster" is not defined)"});
}

TEST_F(ReadAsMeant, CheckpointEveryZeroSaysItsRange) {
    dir.write("s.json", box_scene_json());
    const CommandResult r = expect_rejected("simulate s.json -o out --checkpoint-every 0", 2,
                                            {"--checkpoint-every", "whole number of at least 1"});
    EXPECT_LT(r.err.size(), 300u) << r.err;
}

TEST_F(ReadAsMeant, SymbolicLinkLoopsAreSaidAsSuch) {
    dir.write("s.json",
              replaced(box_scene_json(), R"("box": [6.0, 4.0, 3.0])", R"("mesh": "loop/a.obj")"));
    // In a folder of their own: the scratch directory's listing cannot follow them either.
    const fs::path loop = dir / "loop";
    fs::create_directory(loop);
    for (const char* ext : {".json", ".obj", ".wav", ".h5", ".sofa"}) {
        fs::create_symlink(std::string("b") + ext, loop / (std::string("a") + ext));
        fs::create_symlink(std::string("a") + ext, loop / (std::string("b") + ext));
    }
    audio::Audio a;
    a.sample_rate = 48000;
    a.samples.assign(480, 0.1f);
    audio::write_wav_float(dir / "dry.wav", a);
    ASSERT_TRUE(write_grid_file(
        dir / "grid.h5", plane_wave_grid({1, 0, 0}, {1, 1, 1}, 0.5, 48000, 480), 48000, 0.5));
    const std::string said = "symbolic link loop";
    for (const auto& [args, file] : std::vector<std::pair<std::string, std::string>>{
             {"info loop/a.json", "loop/a.json"},
             {"info s.json", "loop/a.obj"},
             {"analyze loop/a.wav", "loop/a.wav"},
             {"auralize loop/a.wav dry.wav -o out.wav", "loop/a.wav"},
             {"auralize dry.wav loop/a.h5 --listener 1,1,1 -o out.wav", "loop/a.h5"},
             {"auralize dry.wav grid.h5 --listener 1,1,1 --hrtf loop/a.sofa -o out.wav",
              "loop/a.sofa"}}) {
        SCOPED_TRACE(args);
        const CommandResult r = run_ardent(args, dir.path(), 60);
        EXPECT_EQ(r.exit_code, 2) << r.err;
        EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("not found"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(dir / "out.wav"));
    }
}

// --- 10. a result.json beside an IR or a grid that is not its run's ---------------------------

// One small wave-band run (6 x 4 x 3 m box, 500 Hz, 50 ms, a listener grid every 4 cells), made
// once for the suite and copied for each test that edits it.
class ReadAsMeantRun : public ReadAsMeant {
  protected:
    static void SetUpTestSuite() {
        run_dir_ = new ScratchDir;
        run_dir_->write("box.json", box_scene_json(R"({"band": "wave", "max_frequency": 500, )"
                                                   R"("duration": 0.05}, "listener_grid": )"
                                                   R"({"every": 4})"));
        const CommandResult r =
            run_ardent("simulate box.json --threads 1 --quiet -o run", run_dir_->path(), 300);
        ran_ = r.exit_code == 0;
        if (!ran_) std::fprintf(stderr, "simulate failed: %s\n", r.err.c_str());
    }
    static void TearDownTestSuite() {
        delete run_dir_;
        run_dir_ = nullptr;
    }
    void SetUp() override {
        ASSERT_TRUE(ran_) << "the run the tests analyse failed";
        fs::copy(run_dir_->path() / "run", dir / "run", fs::copy_options::recursive);
    }
    // result.json with `from` (once) replaced by `to`.
    void edit_result(const std::string& from, const std::string& to) {
        const fs::path file = dir / "run" / "result.json";
        const std::string text = read_text(file);
        fs::remove(file);
        dir.write("run/result.json", replaced(text, from, to));
    }
    CommandResult analyze(const std::string& args) {
        const CommandResult r = run_ardent("analyze " + args, dir.path(), 120);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return r;
    }

    static ScratchDir* run_dir_;
    static bool ran_;
};
ScratchDir* ReadAsMeantRun::run_dir_ = nullptr;
bool ReadAsMeantRun::ran_ = false;

TEST_F(ReadAsMeantRun, ItsOwnResultIsUsedWithoutAWarning) {
    const CommandResult r = analyze("run/ir/S1_R1.wav");
    EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("the direct path S1 -> R1"), std::string::npos) << r.out;
    const CommandResult m = analyze("--map run/grid/S1.h5 -o maps");
    EXPECT_EQ(m.err.find("warning"), std::string::npos) << m.err;
    EXPECT_NE(m.out.find("each point's distance to source S1"), std::string::npos) << m.out;
}

TEST_F(ReadAsMeantRun, AFarSourceIsNotBelieved) {
    const std::string text = read_text(dir / "run" / "result.json");
    const size_t at = text.find("\"cell_centre\"");
    ASSERT_NE(at, std::string::npos);
    const size_t close = text.find(']', at);
    edit_result(text.substr(at, close + 1 - at), "\"cell_centre\": [1000000.0, 0.0, 0.0]");
    const std::string needle = "does not describe";
    CommandResult r = analyze("run/ir/S1_R1.wav");
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("after the IR's end"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("the direct path"), std::string::npos) << r.out;
    r = analyze("--map run/grid/S1.h5 -o maps");
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("after the IRs' end"), std::string::npos) << r.err;
}

TEST_F(ReadAsMeantRun, ANegativeSpeedOfSoundIsNotBelieved) {
    edit_result("\"speed_of_sound\": 343.0", "\"speed_of_sound\": -343.0");
    CommandResult r = analyze("run/ir/S1_R1.wav");
    EXPECT_NE(r.err.find("speed of sound"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("the direct path"), std::string::npos) << r.out;
    r = analyze("--map run/grid/S1.h5 -o maps");
    EXPECT_NE(r.err.find("speed of sound"), std::string::npos) << r.err;
}

TEST_F(ReadAsMeantRun, AnotherRunsRateHashOrFilesAreNotBelieved) {
    fs::copy_file(dir / "run" / "ir" / "S1_R1.wav", dir / "run" / "ir" / "S9_R9.wav");
    CommandResult r = analyze("run/ir/S9_R9.wav");
    EXPECT_NE(r.err.find("does not list 'ir/S9_R9.wav'"), std::string::npos) << r.err;
    edit_result("\"sample_rate\": 48000", "\"sample_rate\": 96000");
    r = analyze("run/ir/S1_R1.wav");
    EXPECT_NE(r.err.find("96000 Hz"), std::string::npos) << r.err;
    const std::string text = read_text(dir / "run" / "result.json");
    const size_t at = text.find("\"hash\": \"");
    ASSERT_NE(at, std::string::npos);
    edit_result(text.substr(at, 26), "\"hash\": \"0123456789abcdef\"");
    r = analyze("--map run/grid/S1.h5 -o maps2");
    EXPECT_NE(r.err.find("scene.hash 0123456789abcdef"), std::string::npos) << r.err;
}

TEST_F(ReadAsMeantRun, AWavCutInsideItsDataIsWarnedAbout) {
    const std::string whole = read_text(dir / "run" / "ir" / "S1_R1.wav");
    dir.write("cut.wav", whole.substr(0, whole.size() - 4000));
    const CommandResult r = analyze("cut.wav");
    EXPECT_NE(r.err.find("'cut.wav': its header declares 2400 frames, the file holds"),
              std::string::npos)
        << r.err;
    const CommandResult whole_run = analyze("run/ir/S1_R1.wav");
    EXPECT_EQ(whole_run.err.find("header declares"), std::string::npos) << whole_run.err;
}

TEST_F(ReadAsMeant, AFullBandGridWithoutItsGeometricPartIsSaid) {
    dir.write("box.json",
              box_scene_json(R"({"max_frequency": 300, "duration": 0.05}, "listener_grid": )"
                             R"({"every": 4}, "geometric": {"rays": 1000, )"
                             R"("image_source_order": 1})"));
    const CommandResult run =
        run_ardent("simulate box.json --threads 1 --quiet -o run", dir.path(), 300);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const fs::path grid = dir / "run" / "grid" / "S1.h5";
    auralize::Point centre{};
    {
        const auralize::IrGrid g(grid);
        ASSERT_TRUE(g.geometric());
        for (size_t a = 0; a < 3; ++a)
            centre[a] = g.positions()[g.size() / 2][a];
    }
    const hid_t f = H5Fopen(grid.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    ASSERT_GE(H5Ldelete(f, "geometric", H5P_DEFAULT), 0);
    H5Fclose(f);
    audio::Audio a;
    a.sample_rate = 48000;
    a.samples.assign(4800, 0.1f);
    audio::write_wav_float(dir / "dry.wav", a);
    std::ostringstream listener;
    listener << centre[0] << "," << centre[1] << "," << centre[2];
    const CommandResult r =
        run_ardent("auralize dry.wav run/grid/S1.h5 --listener " + listener.str() + " -o out.wav",
                   dir.path(), 120);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("a grid of a full-band run"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("only the wave band is rendered"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ardent::test
