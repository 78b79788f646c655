// Rigid rectangular rooms (rigid_box_case.h) judged through the WAV `ardent simulate` writes
// (issue 19): the solver's IR and the exact image-source IR are band-passed to 0.05-0.8
// max_frequency and compared by relative L2 error over the first 0.25 s and 0.5 s.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "ir_timing.h"
#include "rigid_box_case.h"
#include "signal_tools.h"
#include "test_support.h"

namespace ardent::test {

struct RigidBoxError {
    double err_025 = -1, err_05 = -1;  // relative L2, band 0.05-0.8 f_max
    double low_025 = -1, low_05 = -1;  // the same in 0.05-0.4 f_max (FDTD: >= 25 points/wave)
    long partitions = -1, thinnest = -1;
    double thin_line_share = -1;
    // Error over growing windows (every 0.025 s), for the figure in docs/validation.md.
    std::vector<std::pair<double, double>> growth;
    bool ran = false;
};

// Runs the box through `ardent simulate` (and `ardent info --json` for the decomposition's
// figures) in `dir` and measures the error; prints one line per box.
inline RigidBoxError rigid_box_error(const RigidBox& b, const ScratchDir& dir) {
    RigidBoxError e;
    // One folder per box and variant (the same seed may run with other settings).
    const std::string tag = "rigid" + std::to_string(b.seed) + b.solver + "-" +
                            std::to_string(std::hash<std::string>{}(b.extra_simulation) % 100000);
    const auto scene = dir.write(tag + ".json", rigid_box_scene(b));
    const CommandResult info = run_ardent("info --json " + scene.string(), dir.path());
    if (info.exit_code == 0) {
        const auto j = nlohmann::json::parse(info.out);
        e.partitions = j.value("partitions", -1L);
        e.thinnest = j.value("thinnest_partition", -1L);
        e.thin_line_share = j.value("share_of_air_lines_touching_thin_partitions", -1.0);
    }
    const CommandResult r =
        run_ardent("simulate " + scene.string() + " -o " + (dir / tag).string(), dir.path());
    if (r.exit_code != 0) {
        ADD_FAILURE() << describe(b) << ": ardent simulate failed: " << r.err;
        return e;
    }
    const nlohmann::json result = nlohmann::json::parse(std::ifstream(dir / tag / "result.json"));
    const audio::Audio wav = audio::read_audio(dir / tag / "ir" / "S_R.wav");
    const double fs = wav.sample_rate;
    const std::vector<double> sim(wav.samples.begin(), wav.samples.end());
    const std::vector<double> ref = rigid_box_reference(b, result, fs, sim.size());
    auto errors_in = [&](double hi) {
        const auto sim_bp = bandpass(sim, fs, 0.05 * b.f_max, hi * b.f_max);
        const auto ref_bp = bandpass(ref, fs, 0.05 * b.f_max, hi * b.f_max);
        return [sim_bp, ref_bp, fs, n_all = sim.size()](double seconds) {
            const auto n = std::min(n_all, static_cast<size_t>(std::llround(seconds * fs)));
            return relative_l2(std::span(sim_bp).first(n), std::span(ref_bp).first(n));
        };
    };
    const auto error_over = errors_in(0.8), low_over = errors_in(0.4);
    e.err_025 = error_over(0.25);
    e.err_05 = error_over(0.5);
    e.low_025 = low_over(0.25);
    e.low_05 = low_over(0.5);
    for (double t = 0.025; t <= b.duration + 1e-9; t += 0.025)
        e.growth.emplace_back(t, error_over(t));
    e.ran = true;
    std::printf(
        "[ measured ] %s: %ld partitions, thinnest %ld cells, %.0f %% of air lines touch a "
        "partition thinner than 3 cells; relative L2 error (0.05-0.8 f_max) %.4f over 0.25 s, "
        "%.4f over 0.5 s; in 0.05-0.4 f_max %.4f and %.4f\n",
        describe(b).c_str(), e.partitions, e.thinnest, 100 * e.thin_line_share, e.err_025, e.err_05,
        e.low_025, e.low_05);
    return e;
}

// The bars of issue 19 for ARD: one partition 5 %; several 10 % over 0.25 s and 15 % over 0.5 s.
// FDTD's are its own, from seeds 1-20 (docs/fdtd.md, "Rigid boxes"): at 10 points per wavelength
// its grid's dispersion delays the top of the band along the axes by 0.4 % of the path, so over
// 0.25 s the full band 0.05-0.8 f_max is out of phase (worst 0.75, 1.02 over 0.5 s); it is judged
// where it has at least 25 points per wavelength, 0.05-0.4 f_max (worst 0.18 and 0.37), and the
// full band only for not running away.
inline constexpr double kFdtdLowBar025 = 0.25, kFdtdLowBar05 = 0.45;
inline constexpr double kFdtdBoxBar025 = 0.9, kFdtdBoxBar05 = 1.25;

inline RigidBoxError expect_rigid_box_within_bars(const RigidBox& b, const ScratchDir& dir) {
    const RigidBoxError e = rigid_box_error(b, dir);
    if (!e.ran) return e;
    if (b.solver == "fdtd") {
        EXPECT_LE(e.low_025, kFdtdLowBar025) << describe(b);
        EXPECT_LE(e.low_05, kFdtdLowBar05) << describe(b);
        EXPECT_LE(e.err_025, kFdtdBoxBar025) << describe(b);
        EXPECT_LE(e.err_05, kFdtdBoxBar05) << describe(b);
    } else if (e.partitions == 1) {
        EXPECT_LE(e.err_05, 0.05) << describe(b);
    } else {
        EXPECT_LE(e.err_025, 0.10) << describe(b);
        EXPECT_LE(e.err_05, 0.15) << describe(b);
    }
    return e;
}

// A source in the middle of a large rigid cube and receivers at cell offsets from it; the lag of
// each receiver's WAV against the exact image-source IR (ir_timing.h).
// FDTD: measured +0.40 to +0.44 % of the travel time along the axes at 10 points per
// wavelength, +0.03 % along the diagonal (docs/fdtd.md, "IR timing").
inline constexpr double kFdtdTimingBarShare = 0.006;

struct TimingCase {
    std::string solver = "ard";
    double f_max = 500;
    int sample_rate = 48000;
    std::vector<std::array<int, 3>> receivers;  // cell offsets from the source
};

struct TimingResult {
    bool ran = false;
    double dt = 0;
    std::vector<double> lag_s, distance_m;
};

inline TimingResult measure_timing(const TimingCase& t, const ScratchDir& dir) {
    TimingResult out;
    RigidBox b;
    b.solver = t.solver;
    b.f_max = t.f_max;
    const double half = 6 / t.f_max;  // the fit's window: +-half around the arrival
    // 64 of ARD's cells: one partition for ARD (exact inside), and the walls' reflections arrive
    // after the window for receivers up to 14 cells away.
    const int n = 64;
    b.cells = {n, n, n};
    b.source = {n / 2, n / 2, n / 2};
    double reach = 0;
    for (const auto& o : t.receivers)
        reach = std::max(reach, std::hypot(o[0], o[1], o[2]));
    const double h = rigid_box_h(b);
    b.duration = reach * h / 343.0 + 2 * half;
    // The box's scene with its one receiver replaced by the case's and the output rate set.
    nlohmann::json scene = nlohmann::json::parse(rigid_box_scene(b));
    scene["receivers"] = nlohmann::json::array();
    for (size_t i = 0; i < t.receivers.size(); ++i) {
        nlohmann::json position = nlohmann::json::array();
        for (int a = 0; a < 3; ++a)
            position.push_back((b.source[a] + t.receivers[i][a] + 0.5) * h);
        scene["receivers"].push_back({{"name", "R" + std::to_string(i)}, {"position", position}});
    }
    scene["output"] = {{"sample_rate", t.sample_rate}};
    const std::string tag = "timing-" + t.solver + "-" + std::to_string(t.sample_rate);
    const auto file = dir.write(tag + ".json", scene.dump());
    const CommandResult r =
        run_ardent("simulate " + file.string() + " -o " + (dir / tag).string(), dir.path());
    if (r.exit_code != 0) {
        ADD_FAILURE() << tag << ": ardent simulate failed: " << r.err;
        return out;
    }
    const nlohmann::json result = nlohmann::json::parse(std::ifstream(dir / tag / "result.json"));
    out.dt = result["solver"]["dt"].get<double>();
    for (size_t i = 0; i < t.receivers.size(); ++i) {
        const std::string name = "R" + std::to_string(i);
        const audio::Audio wav = audio::read_audio(dir / tag / "ir" / ("S_" + name + ".wav"));
        const std::vector<double> sim(wav.samples.begin(), wav.samples.end());
        const double fs = wav.sample_rate;
        // The reference for this receiver alone: the box helper reads receiver 0's centre.
        nlohmann::json one_receiver = result;
        one_receiver["receivers"] = nlohmann::json::array({result["receivers"][i]});
        const std::vector<double> ref = rigid_box_reference(b, one_receiver, fs, sim.size());
        std::array<double, 3> s{}, q{};
        for (int a = 0; a < 3; ++a) {
            s[a] = result["sources"][0]["cell_centre"][a].get<double>();
            q[a] = result["receivers"][i]["cell_centre"][a].get<double>();
        }
        const double r_m = std::hypot(s[0] - q[0], s[1] - q[1], s[2] - q[2]);
        out.distance_m.push_back(r_m);
        out.lag_s.push_back(
            measured_lag(sim, ref, fs, r_m / 343.0, half, 0.2 * t.f_max, 0.8 * t.f_max));
    }
    out.ran = true;
    return out;
}

}  // namespace ardent::test
