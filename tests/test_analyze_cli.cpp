// `ardent analyze` through the real command line: the table and the JSON of a synthetic decay,
// channel choice, band choice, maps over a simulated listener grid, and bad input. Every bad input
// must exit with 2, name the file and say what is wrong on stderr, and write nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/analysis.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/pipeline/grid_full_band.h"
#include "test_support.h"

namespace ardent::test {
namespace {

// map.csv of `ardent analyze --map`: its header, and each row as its text and its fields (an
// empty last field included).
struct MapCsv {
    std::string header;
    std::vector<std::pair<std::string, std::vector<std::string>>> rows;
};

MapCsv read_map_csv(const std::filesystem::path& file) {
    MapCsv csv;
    std::ifstream in(file);
    std::getline(in, csv.header);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string x; std::getline(ss, x, ',');)
            f.push_back(x);
        if (!line.empty() && line.back() == ',') f.push_back("");
        csv.rows.emplace_back(line, std::move(f));
    }
    return csv;
}

namespace fs = std::filesystem;

// e^(-a t) sin(2 pi 1000 t), decaying 60 dB in t60 seconds.
std::vector<float> decay(double t60, double fs = 48000, double seconds = 1.5) {
    std::vector<float> v(static_cast<size_t>(seconds * fs));
    const double a = 3 * std::log(10.0) / t60;
    for (size_t i = 0; i < v.size(); ++i) {
        const double t = static_cast<double>(i) / fs;
        v[i] = static_cast<float>(std::exp(-a * t) * std::sin(2 * std::numbers::pi * 1000 * t));
    }
    return v;
}

class AnalyzeCli : public ::testing::Test {
  protected:
    ScratchDir dir;

    void write_wav(const std::string& name, const std::vector<float>& mono, int rate = 48000) {
        audio::write_wav_float(dir / name, mono, rate);
    }

    // Runs `ardent ARGS`, expects exit 2, every needle on stderr, no internal error and no new
    // file in the scratch directory.
    void expect_rejected(const std::string& args, std::initializer_list<std::string> needles) {
        SCOPED_TRACE("ardent " + args);
        const std::string before = dir.listing();
        const CommandResult r = run_ardent(args, dir.path());
        EXPECT_EQ(r.exit_code, 2) << "stderr: " << r.err << "\nstdout: " << r.out;
        for (const std::string& n : needles)
            EXPECT_NE(r.err.find(n), std::string::npos)
                << "stderr lacks \"" << n << "\": " << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_EQ(dir.listing(), before) << "something was written";
    }
};

TEST_F(AnalyzeCli, TableOfADecay) {
    write_wav("ir.wav", decay(0.8));
    const CommandResult r = run_ardent("analyze ir.wav", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("ir.wav: channel 1 of 1, 48000 Hz"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("octave bands"), std::string::npos) << r.out;
    // The 1 kHz row: EDT, T20 and T30 of 0.800 s.
    const size_t row = r.out.find("\n  1000 ");
    ASSERT_NE(row, std::string::npos) << r.out;
    const std::string line = r.out.substr(row + 1, r.out.find('\n', row + 1) - row - 1);
    EXPECT_NE(line.find("0.800   0.800   0.800"), std::string::npos) << line;
    EXPECT_NE(r.out.find("\n  8000 "), std::string::npos) << r.out;
}

TEST_F(AnalyzeCli, JsonThirdOctavesAndChannels) {
    // Two channels with different decays; --channel 2 picks the second.
    audio::Audio stereo;
    stereo.sample_rate = 48000;
    stereo.channels = 2;
    const std::vector<float> a = decay(0.5), b = decay(1.2);
    for (size_t i = 0; i < a.size(); ++i) {
        stereo.samples.push_back(a[i]);
        stereo.samples.push_back(b[i]);
    }
    audio::write_wav_float(dir / "st.wav", stereo);
    for (const auto& [args, t] : {std::pair{std::string("--channel 2 --bands third"), 1.2},
                                  std::pair{std::string("--third-octave"), 0.5}}) {
        SCOPED_TRACE(args);
        const CommandResult r = run_ardent("analyze st.wav --json " + args, dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const nlohmann::json j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["band_type"], "third");
        EXPECT_EQ(j["channels"], 2);
        ASSERT_EQ(j["bands"].size(), 24u);
        const auto& k1 = j["bands"][13];
        EXPECT_EQ(k1["centre_hz"], 1000);
        EXPECT_NEAR(k1["t30_s"].get<double>(), t, 0.01 * t);
        EXPECT_TRUE(k1["t30_reliable"].get<bool>());
    }
}

// --- bad input
// ------------------------------------------------------------------------------------

TEST_F(AnalyzeCli, MissingFile) {
    expect_rejected("analyze nothere.wav", {"nothere.wav", "no such file"});
}

TEST_F(AnalyzeCli, DirectoryInsteadOfAFile) {
    fs::create_directory(dir / "d.wav");
    expect_rejected("analyze d.wav", {"d.wav", "directory"});
}

TEST_F(AnalyzeCli, EmptyFile) {
    dir.write("empty.wav", "");
    expect_rejected("analyze empty.wav", {"empty.wav", "cannot read"});
}

TEST_F(AnalyzeCli, CorruptFiles) {
    dir.write("text.wav", "This is a letter, not a sound.\n");
    expect_rejected("analyze text.wav", {"text.wav", "cannot read"});
    std::mt19937 rng(3);
    std::string bytes(4096, '\0');
    for (char& c : bytes)
        c = static_cast<char>(rng() & 0xff);
    dir.write("noise.wav", bytes);
    expect_rejected("analyze noise.wav", {"noise.wav", "cannot read"});
    // A real WAV cut off inside its header.
    write_wav("whole.wav", decay(0.5));
    std::ifstream in(dir / "whole.wav", std::ios::binary);
    std::string head(20, '\0');
    in.read(head.data(), 20);
    dir.write("cut.wav", head);
    fs::remove(dir / "whole.wav");
    expect_rejected("analyze cut.wav", {"cut.wav", "cannot read"});
}

TEST_F(AnalyzeCli, ZeroLengthAudio) {
    write_wav("none.wav", {});
    expect_rejected("analyze none.wav", {"cannot analyze 'none.wav'", "no samples"});
}

TEST_F(AnalyzeCli, SilentIR) {
    write_wav("zeros.wav", std::vector<float>(48000, 0.0f));
    expect_rejected("analyze zeros.wav", {"cannot analyze 'zeros.wav'", "silent"});
}

TEST_F(AnalyzeCli, NaNSamples) {
    std::vector<float> v = decay(0.5);
    v[100] = std::numeric_limits<float>::quiet_NaN();
    write_wav("nan.wav", v);
    expect_rejected("analyze nan.wav", {"cannot analyze 'nan.wav'", "sample 100", "NaN"});
}

TEST_F(AnalyzeCli, AbsurdSampleRates) {
    write_wav("slow.wav", decay(0.5, 100, 10), 100);
    expect_rejected("analyze slow.wav", {"cannot analyze 'slow.wav'", "sample rate 100 Hz"});
    write_wav("fast.wav", decay(0.5, 48000, 0.1), 5000000);
    expect_rejected("analyze fast.wav", {"cannot analyze 'fast.wav'", "sample rate 5000000 Hz"});
}

TEST_F(AnalyzeCli, BadChannelIndex) {
    audio::Audio stereo;
    stereo.sample_rate = 48000;
    stereo.channels = 2;
    for (float v : decay(0.5)) {  // a decay on the left, silence on the right
        stereo.samples.push_back(v);
        stereo.samples.push_back(0.0f);
    }
    audio::write_wav_float(dir / "st.wav", stereo);
    expect_rejected("analyze st.wav --channel 3", {"st.wav", "--channel 3", "2 channel"});
    expect_rejected("analyze st.wav --channel 0", {"st.wav", "--channel 0"});
    // A channel's own problem names the channel.
    expect_rejected("analyze st.wav --channel 2", {"'st.wav' channel 2", "silent"});
}

TEST_F(AnalyzeCli, BadBandsOption) {
    write_wav("ir.wav", decay(0.5));
    expect_rejected("analyze ir.wav --bands fifth", {"--bands", "fifth"});
}

TEST_F(AnalyzeCli, BadMaxFrequency) {
    write_wav("ir.wav", decay(0.5));
    expect_rejected("analyze ir.wav --max-frequency nan", {"--max-frequency", "nan"});
    expect_rejected("analyze ir.wav --max-frequency -400", {"--max-frequency"});
    expect_rejected("analyze ir.wav --max-frequency 30", {"ir.wav", "no octave band"});
}

// An IR that `ardent simulate` wrote is analysed as what it is: time zero at its direct sound (the
// geometry in result.json), and no band above the run's flat band (a wave-band run at 500 Hz is
// flat to 400 Hz). Boxes and positions from printed seeds; the onset must be within 1 ms of the
// source-receiver distance over c. result.json's own table has the same onset.
TEST_F(AnalyzeCli, SimulatedIrStartsAtItsDirectSound) {
    for (unsigned seed : {41u, 42u}) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> u(0, 1);
        double size[3], src[3], rcv[3], d2 = 0;
        for (int a = 0; a < 3; ++a) {
            size[a] = a == 2 ? 2.5 + 1.5 * u(rng) : 3 + 4 * u(rng);
            src[a] = size[a] * (0.2 + 0.6 * u(rng));
            rcv[a] = size[a] * (0.2 + 0.6 * u(rng));
            d2 += (src[a] - rcv[a]) * (src[a] - rcv[a]);
        }
        const double direct = std::sqrt(d2) / 343;
        char scene[1024];
        std::snprintf(
            scene, sizeof scene,
            R"({"format": "ardent-scene/1", "name": "box", "geometry": {"box": [%.3f, %.3f, %.3f]},
  "materials": {"wall": {"absorption": 0.1}}, "surfaces": {"*": "wall"},
  "sources": [{"name": "S1", "position": [%.3f, %.3f, %.3f]}],
  "receivers": [{"name": "R1", "position": [%.3f, %.3f, %.3f]}],
  "simulation": {"max_frequency": 500, "duration": 0.3, "band": "wave"}})",
            size[0], size[1], size[2], src[0], src[1], src[2], rcv[0], rcv[1], rcv[2]);
        std::printf("seed %u: %s\n  direct sound at %.4f s\n", seed, scene, direct);
        const std::string out = "run" + std::to_string(seed);
        dir.write(out + ".json", scene);
        ASSERT_EQ(
            run_ardent("simulate " + out + ".json -o " + out + " --quiet", dir.path()).exit_code,
            0);
        const CommandResult r = run_ardent("analyze " + out + "/ir/S1_R1.wav --json", dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["onset_from"], "given");
        EXPECT_NEAR(j["onset_s"].get<double>(), direct, 1e-3);
        EXPECT_EQ(j["valid_to_hz"].get<double>(), 400.0);
        for (const auto& b : j["bands"])
            EXPECT_LE(b["centre_hz"].get<double>(), 250.0) << "a band above the run's flat band";
        std::ifstream in(dir / out / "result.json");
        const auto result = nlohmann::json::parse(in);
        EXPECT_DOUBLE_EQ(result["acoustics"][0]["iso3382"]["onset_s"].get<double>(),
                         j["onset_s"].get<double>());
        // The ambisonic IR of the same pair has the same provenance.
        const CommandResult ra =
            run_ardent("analyze " + out + "/ambix/S1_R1.wav --json", dir.path());
        ASSERT_EQ(ra.exit_code, 0) << ra.err;
        EXPECT_EQ(nlohmann::json::parse(ra.out)["onset_s"], j["onset_s"]);
        // Alone (--no-result, or a copy elsewhere) it falls back on ISO 3382-1's rule, with the
        // band given by hand; the table says where each came from.
        const CommandResult alone = run_ardent(
            "analyze " + out + "/ir/S1_R1.wav --no-result --max-frequency 400", dir.path());
        ASSERT_EQ(alone.exit_code, 0) << alone.err;
        EXPECT_NE(alone.out.find("ISO 3382-1's rule"), std::string::npos) << alone.out;
        EXPECT_NE(alone.out.find("bands above 400 Hz left out: --max-frequency"), std::string::npos)
            << alone.out;
        EXPECT_EQ(alone.out.find("  500 "), std::string::npos) << alone.out;
        const CommandResult table = run_ardent("analyze " + out + "/ir/S1_R1.wav", dir.path());
        EXPECT_NE(table.out.find("the direct path S1 -> R1"), std::string::npos) << table.out;
    }
}

// A result.json that is not one (broken, or nested as an attacker would) is passed over with a
// warning: the IR is analysed alone.
TEST_F(AnalyzeCli, BrokenResultJsonIsPassedOver) {
    fs::create_directories(dir / "res" / "ir");
    audio::write_wav_float(dir / "res" / "ir" / "S1_R1.wav", decay(0.5), 48000);
    for (const std::string& bad : {std::string("{not json"), std::string(100000, '[')}) {
        dir.write("res/result.json", bad);
        const CommandResult r = run_ardent("analyze res/ir/S1_R1.wav", dir.path());
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.err.find("result.json"), std::string::npos) << r.err;
        EXPECT_NE(r.out.find("ISO 3382-1's rule"), std::string::npos) << r.out;
    }
}

// `analyze --map`: the CSV's value at every grid point and band equals the analysis of that
// point's IR (read from the grid file, analysed here with the onset and band `analyze` takes for a
// simulated IR: the distance to the source over c, and the run's flat band); a PNG per parameter
// and band; the output folder is never replaced without --force, and bad input writes nothing.
TEST_F(AnalyzeCli, MapValuesAreTheAnalysesOfTheGridPointsIrs) {
    const unsigned seed = 43;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    double size[3], src[3];
    for (int a = 0; a < 3; ++a) {
        size[a] = a == 2 ? 2.5 + 1.0 * u(rng) : 3 + 2 * u(rng);
        src[a] = size[a] * (0.2 + 0.6 * u(rng));
    }
    const double spacing = 0.8 + 0.4 * u(rng);
    char scene[1024];
    std::snprintf(
        scene, sizeof scene,
        R"({"format": "ardent-scene/1", "name": "box", "geometry": {"box": [%.3f, %.3f, %.3f]},
  "materials": {"wall": {"absorption": 0.15}}, "surfaces": {"*": "wall"},
  "sources": [{"name": "S1", "position": [%.3f, %.3f, %.3f]}],
  "listener_grid": {"spacing_m": %.3f},
  "simulation": {"max_frequency": 400, "duration": 0.4, "band": "wave"}})",
        size[0], size[1], size[2], src[0], src[1], src[2], spacing);
    std::printf("seed %u: %s\n", seed, scene);
    dir.write("box.json", scene);
    ASSERT_EQ(run_ardent("simulate box.json -o run --quiet", dir.path()).exit_code, 0);
    const CommandResult r = run_ardent("analyze --map run/grid/S1.h5 -o maps", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("bands above 320 Hz left out"), std::string::npos) << r.out;

    std::ifstream rin(dir / "run" / "result.json");
    const auto result = nlohmann::json::parse(rin);
    const auto source = result["sources"][0]["cell_centre"].get<std::array<double, 3>>();
    const auralize::IrGrid grid(dir / "run" / "grid" / "S1.h5");
    std::vector<auralize::Analysis> expected;
    for (size_t i = 0; i < grid.size(); ++i) {
        const auto& p = grid.positions()[i];
        auralize::AnalysisOptions o;
        o.max_frequency_hz = 320;
        o.free_field_10m = 1 / (40 * std::numbers::pi);
        o.onset_s = std::hypot(p[0] - source[0], p[1] - source[1], p[2] - source[2]) / 343.0;
        expected.push_back(
            auralize::analyze_ir(grid.ir(i), grid.sample_rate(), auralize::Bands::Octave, o));
    }
    const MapCsv csv = read_map_csv(dir / "maps" / "map.csv");
    EXPECT_EQ(csv.header,
              "point,x_m,y_m,z_m,band_hz,t20_s,edt_s,c80_db,d50,t20_reliable,edt_reliable,from,"
              "g_db");
    size_t rows = 0, values = 0;
    for (const auto& [line, f] : csv.rows) {
        ASSERT_EQ(f.size(), 13u) << line;
        const size_t point = std::stoul(f[0]);
        ASSERT_LT(point, expected.size());
        const size_t band = rows % expected[point].results.size();
        const auralize::BandResult& b = expected[point].results[band];
        SCOPED_TRACE(line);
        EXPECT_EQ(std::stod(f[4]), b.nominal_hz);
        EXPECT_NEAR(std::stod(f[1]), grid.positions()[point][0], 1e-6);
        const std::optional<double> want[] = {b.t20_s, b.edt_s, b.c80_db, b.d50};
        for (size_t k = 0; k < 4; ++k) {
            EXPECT_EQ(f[5 + k].empty(), !want[k].has_value()) << "column " << 5 + k;
            if (f[5 + k].empty() || !want[k]) continue;
            EXPECT_NEAR(std::stod(f[5 + k]), *want[k], 1e-7 * std::max(1.0, std::fabs(*want[k])));
            ++values;
        }
        EXPECT_EQ(f[9], b.t20_reliable ? "1" : "0");
        EXPECT_EQ(f[11], "wave");
        ASSERT_TRUE(b.g_db.has_value());
        EXPECT_NEAR(std::stod(f[12]), *b.g_db, 1e-6);
        ++rows;
    }
    const size_t bands = expected[0].results.size();
    EXPECT_EQ(bands, 2u);  // 63 and 125 Hz: the 250 Hz octave reaches 354 Hz, above 320 Hz
    EXPECT_EQ(rows, grid.size() * bands);
    EXPECT_GT(values, rows * 3);
    for (const char* png : {"t20_125hz.png", "edt_125hz.png", "c80_63hz.png", "d50_125hz.png"})
        EXPECT_TRUE(fs::exists(dir / "maps" / png)) << png;

    // The folder is never replaced without --force, and an IR and a map exclude each other.
    expect_rejected("analyze --map run/grid/S1.h5 -o maps", {"maps", "exists already", "--force"});
    expect_rejected("analyze --map run/grid/S1.h5", {"--map needs -o DIR"});
    expect_rejected("analyze --map run/grid/S1.h5 -o m2 --json", {"--json"});
    expect_rejected("analyze run/ir.wav --map run/grid/S1.h5 -o m2", {"not both"});
    expect_rejected("analyze --map run/result.json -o m2", {"result.json"});
    expect_rejected("analyze --map run/grid/S1.h5 -o m2 --height nan", {"--height"});
    expect_rejected("analyze", {"give an IR to analyse, or --map GRID.h5 -o DIR"});
    expect_rejected("analyze run/ir/x.wav -o m2", {"apply to --map only"});
    const CommandResult again =
        run_ardent("analyze --map run/grid/S1.h5 -o maps --force --height 0", dir.path());
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("(nearest 0.000 m, --height)"), std::string::npos) << again.out;
}

// A full-band run's grid: each point's map values are the analysis of its full-band IR (the wave
// row joined to the grid's geometric part, pipeline::grid_point_ir, at the receivers' rate),
// which is also what `ardent auralize` renders at that point (W of an impulse, sample for sample);
// the bands reach 8 kHz and say which solver they came from.
TEST_F(AnalyzeCli, FullBandMapIsTheAnalysisOfEachPointsFullBandIr) {
    const unsigned seed = 44;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    double size[3], src[3];
    for (int a = 0; a < 3; ++a) {
        size[a] = a == 2 ? 2.5 + 0.5 * u(rng) : 3 + 1.5 * u(rng);
        src[a] = size[a] * (0.2 + 0.6 * u(rng));
    }
    char scene[1024];
    std::snprintf(
        scene, sizeof scene,
        R"({"format": "ardent-scene/1", "name": "box", "geometry": {"box": [%.3f, %.3f, %.3f]},
  "materials": {"wall": {"absorption": 0.15}}, "surfaces": {"*": "wall"},
  "sources": [{"name": "S1", "position": [%.3f, %.3f, %.3f]}],
  "listener_grid": {"spacing_m": 1.1},
  "simulation": {"max_frequency": 300, "duration": 0.4, "band": "full"}})",
        size[0], size[1], size[2], src[0], src[1], src[2]);
    std::printf("seed %u: %s\n", seed, scene);
    dir.write("box.json", scene);
    ASSERT_EQ(run_ardent("simulate box.json -o run --quiet", dir.path()).exit_code, 0);
    const CommandResult r = run_ardent("analyze --map run/grid/S1.h5 -o maps", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("full band at 48000 Hz"), std::string::npos) << r.out;

    std::ifstream rin(dir / "run" / "result.json");
    const auto result = nlohmann::json::parse(rin);
    const auto source = result["sources"][0]["cell_centre"].get<std::array<double, 3>>();
    const auralize::IrGrid grid(dir / "run" / "grid" / "S1.h5");
    ASSERT_TRUE(grid.geometric());
    const double fs = 48000;
    std::vector<auralize::Analysis> expected;
    for (size_t i = 0; i < grid.size(); ++i) {
        const auto& p = grid.positions()[i];
        auralize::AnalysisOptions o;
        o.max_frequency_hz = 0.45 * fs;
        o.free_field_10m = 1 / (40 * std::numbers::pi);
        o.onset_s = std::hypot(p[0] - source[0], p[1] - source[1], p[2] - source[2]) / 343.0;
        expected.push_back(
            auralize::analyze_ir(ardent::pipeline::grid_point_ir(grid, i, grid.ir(i), fs), fs,
                                 auralize::Bands::Octave, o));
    }
    const MapCsv csv = read_map_csv(dir / "maps" / "map.csv");
    size_t rows = 0, values = 0, geometric = 0;
    for (const auto& [line, f] : csv.rows) {
        ASSERT_EQ(f.size(), 13u) << line;
        const size_t point = std::stoul(f[0]);
        ASSERT_LT(point, expected.size());
        const size_t band = rows % expected[point].results.size();
        const auralize::BandResult& b = expected[point].results[band];
        SCOPED_TRACE(line);
        EXPECT_EQ(std::stod(f[4]), b.nominal_hz);
        const std::optional<double> want[] = {b.t20_s, b.edt_s, b.c80_db, b.d50};
        for (size_t k = 0; k < 4; ++k) {
            EXPECT_EQ(f[5 + k].empty(), !want[k].has_value()) << "column " << 5 + k;
            if (f[5 + k].empty() || !want[k]) continue;
            EXPECT_NEAR(std::stod(f[5 + k]), *want[k], 1e-7 * std::max(1.0, std::fabs(*want[k])));
            ++values;
        }
        geometric += f[11] == "geometric";
        ASSERT_TRUE(b.g_db.has_value());
        EXPECT_NEAR(std::stod(f[12]), *b.g_db, 1e-6);
        ++rows;
    }
    EXPECT_EQ(expected[0].results.back().nominal_hz, 8000);
    EXPECT_EQ(rows, grid.size() * expected[0].results.size());
    EXPECT_GT(values, rows * 3);
    EXPECT_EQ(geometric, grid.size() * 5);  // 500 Hz-8 kHz: above the 180 Hz crossover's band
    EXPECT_TRUE(fs::exists(dir / "maps" / "t20_4000hz.png"));

    // `ardent auralize` at a grid point renders that IR.
    const size_t point = grid.size() / 2;
    const auto& p = grid.positions()[point];
    std::vector<float> impulse(4800, 0.0f);
    impulse[0] = 1;
    audio::write_wav_float(dir / "impulse.wav", impulse, 48000);
    char listener[128];
    std::snprintf(listener, sizeof listener, "%.9f,%.9f,%.9f", p[0], p[1], p[2]);
    const CommandResult a =
        run_ardent(std::string("auralize impulse.wav run/grid/S1.h5 --listener ") + listener +
                       " --ambisonics --normalize none -o amb.wav",
                   dir.path());
    ASSERT_EQ(a.exit_code, 0) << a.err;
    const auto w = audio::read_audio(dir / "amb.wav").channel(0);
    const auto want = ardent::pipeline::grid_point_ir(grid, point, grid.ir(point), fs);
    double err = 0, ref = 0;
    for (size_t k = 0; k < want.size(); ++k) {
        const double d = static_cast<double>(w[k]) - static_cast<double>(want[k]);
        err += d * d;
        ref += static_cast<double>(want[k]) * static_cast<double>(want[k]);
    }
    std::printf("auralize at grid point %zu vs its full-band IR: relative L2 %.2e\n", point,
                std::sqrt(err / ref));
    EXPECT_LT(std::sqrt(err / ref), 1e-5);
}

}  // namespace
}  // namespace ardent::test

namespace ardent::test {
namespace {

// Strength G of a simulated receiver, through the files: `ardent analyze --json` of a full-band
// receiver WAV (which reads result.json: Ardent's IR scale) gives, in the octaves 1-4 kHz of a
// diffusely reflecting box, the diffuse-field theory's 10 lg(100 / r^2 + 31200 T / V) (Barron's
// classical theory; T the band's T20) within 1.5 dB. Box and positions from a printed seed.
TEST(AnalyzeStrength, SimulatedReceiversGIsTheDiffuseFieldTheorys) {
    ScratchDir dir;
    const unsigned seed = 45;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const double sx = 6 + 3 * u(rng), sy = 5 + 2 * u(rng), sz = 3 + u(rng);
    const double src[3] = {sx * (0.2 + 0.2 * u(rng)), sy * (0.3 + 0.4 * u(rng)), 1.5};
    const double rec[3] = {sx * (0.6 + 0.2 * u(rng)), sy * (0.3 + 0.4 * u(rng)), 1.2};
    char scene[1024];
    std::snprintf(
        scene, sizeof scene,
        R"({"format": "ardent-scene/1", "name": "g box", "geometry": {"box": [%.3f, %.3f, %.3f]},
  "materials": {"wall": {"absorption": 0.12, "scattering": 0.8}}, "surfaces": {"*": "wall"},
  "sources": [{"name": "S1", "position": [%.3f, %.3f, %.3f]}],
  "receivers": [{"name": "R1", "position": [%.3f, %.3f, %.3f]}],
  "simulation": {"max_frequency": 300, "duration": 1.5, "band": "full"}})",
        sx, sy, sz, src[0], src[1], src[2], rec[0], rec[1], rec[2]);
    std::printf("[ case ] seed %u: %s\n", seed, scene);
    dir.write("box.json", scene);
    ASSERT_EQ(run_ardent("simulate box.json -o run --quiet", dir.path()).exit_code, 0);
    const CommandResult r = run_ardent("analyze run/ir/S1_R1.wav --json", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    std::ifstream rin(dir / "run" / "result.json");
    const auto result = nlohmann::json::parse(rin);
    const auto s = result["sources"][0]["cell_centre"].get<std::array<double, 3>>();
    const auto q = result["receivers"][0]["cell_centre"].get<std::array<double, 3>>();
    const double dist = std::hypot(s[0] - q[0], s[1] - q[1], s[2] - q[2]);
    const double v = sx * sy * sz;
    for (const auto& b : j["bands"]) {
        const double hz = b["centre_hz"].get<double>();
        if (hz < 1000 || hz > 4000) continue;
        ASSERT_FALSE(b["g_db"].is_null()) << hz;
        const double g = b["g_db"].get<double>(), t = b["t20_s"].get<double>();
        const double want = 10 * std::log10(100 / (dist * dist) + 31200 * t / v);
        std::printf(
            "%5.0f Hz: G %+.2f dB, diffuse-field theory %+.2f dB (T20 %.3f s, r %.2f m, "
            "V %.1f m^3)\n",
            hz, g, want, t, dist, v);
        EXPECT_NEAR(g, want, 1.5) << hz << " Hz";
    }
}

}  // namespace
}  // namespace ardent::test
