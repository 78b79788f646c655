// The BRAS CR2 seminar room (../shared/data/bras-cr2; Brinkmann et al., doi:10.14279/depositonce-
// 6726) through what `ardent simulate` writes: the scene built from the benchmark's own files (the
// five materials' fitted third-octave absorption, LS01 and MP01-MP05, the measured air), its five
// receiver WAVs analysed per octave (ISO 3382-1), T20 and EDT averaged over the receivers, against
// the measured values (third-octave bands, averaged over positions, in Evaluation_CR2_*.txt; an
// octave is the mean of its three thirds).
#pragma once

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ardent/auralize/analysis.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/preprocess/scene.h"
#include "signal_tools.h"
#include "test_support.h"

namespace ardent::test {

inline std::filesystem::path bras_cr2_dir() {
    return shared_dir() / "data" / "bras-cr2";
}

// Rows of comma-separated numbers.
inline std::vector<std::vector<double>> read_rows(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::vector<std::vector<double>> rows;
    for (std::string line; std::getline(in, line);) {
        std::vector<double> row;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, ',');)
            if (cell.find_first_not_of(" \t\r") != std::string::npos)
                row.push_back(std::stod(cell));
        if (!row.empty()) rows.push_back(row);
    }
    return rows;
}

// A material's fitted random-incidence absorption (mat_CR2_<name>.csv: third-octave centres in
// row 1, absorption in row 2) or, with row 3, its scattering coefficient.
inline std::vector<AbsorptionBand> bras_cr2_bands(const std::string& name, size_t row = 1) {
    const auto rows = read_rows(bras_cr2_dir() / ("mat_CR2_" + name + ".csv"));
    std::vector<AbsorptionBand> bands;
    for (size_t b = 0; b < rows.at(0).size() && b < rows.at(row).size(); ++b)
        bands.push_back({rows[0][b], rows[row][b]});
    return bands;
}

inline constexpr const char* kBrasCr2Materials[] = {"concrete", "windows", "ceiling", "plaster",
                                                    "floor"};

// `full`: a full-band run, the materials with their scattering coefficients too.
inline std::string bras_cr2_scene(const std::string& solver, double f_max, double duration,
                                  bool full = false) {
    const auto& names = kBrasCr2Materials;
    std::ostringstream s;
    s.precision(6);
    s << R"({"format": "ardent-scene/1", "name": "BRAS CR2",)"
      << R"( "geometry": {"mesh": ")" << (bras_cr2_dir() / "scene9.ac").string()
      << R"(", "up": "y"}, "materials": {)";
    for (int m = 0; m < 5; ++m) {
        const auto bands = bras_cr2_bands(names[m]);
        s << (m ? ", " : "") << "\"" << names[m] << R"(": {"absorption": {)";
        for (size_t b = 0; b < bands.size(); ++b)
            s << (b ? ", " : "") << "\"" << bands[b].hz << "\": " << bands[b].alpha;
        if (full) {
            const auto scattering = bras_cr2_bands(names[m], 2);
            s << R"(}, "scattering": {)";
            for (size_t b = 0; b < scattering.size(); ++b)
                s << (b ? ", " : "") << "\"" << scattering[b].hz << "\": " << scattering[b].alpha;
        }
        s << "}}";
    }
    s << R"(}, "surfaces": {)";
    for (int m = 0; m < 5; ++m)
        s << (m ? ", " : "") << "\"*" << names[m] << "*\": \"" << names[m] << "\"";
    // Scene09_Informed.rpf: LS01, MP01-MP05 (y up), 19.5 degrees C, 41.7 % relative humidity.
    s << R"(}, "sources": [{"name": "LS01", "position": [0.931, 0.723, 2.547]}],)"
      << R"( "receivers": [{"name": "MP01", "position": [-0.993, 1.23, -1.426]},)"
      << R"( {"name": "MP02", "position": [0.439, 1.23, 0.147]},)"
      << R"( {"name": "MP03", "position": [1.361, 1.23, 0.603]},)"
      << R"( {"name": "MP04", "position": [-1.11, 1.23, 0.256]},)"
      << R"( {"name": "MP05", "position": [-0.998, 1.23, 1.409]}],)"
      << R"( "air": {"temperature": 19.5, "humidity": 41.7},)"
      << R"( "simulation": {"band": ")" << (full ? "full" : "wave") << R"(", "solver": ")" << solver
      << R"(", "device": "cpu", "max_frequency": )" << f_max << R"(, "duration": )" << duration
      << "}}";
    return s.str();
}

struct Cr2Band {
    double hz = 0;
    double t20 = 0, edt = 0, c80 = 0;  // simulated, mean over the five receivers
    double t20_measured = 0, edt_measured = 0, c80_measured = 0;
};

// The measured octave value: the mean of the octave's three third-octave bands.
inline double bras_cr2_measured(const std::string& parameter, double octave_hz) {
    const auto rows = read_rows(bras_cr2_dir() / ("Evaluation_CR2_" + parameter + ".txt"));
    double sum = 0;
    int n = 0;
    for (size_t b = 0; b < rows.at(0).size(); ++b) {
        const double ratio = rows[0][b] / octave_hz;
        if (ratio > 0.7 && ratio < 1.42) {
            sum += rows.at(1).at(b);
            ++n;
        }
    }
    return n == 3 ? sum / n : std::nan("");
}

// Simulates `duration` seconds (in `dir`) and returns the octaves 125 Hz up to 0.7 max_frequency
// (a full-band run: up to 8 kHz).
// T20 needs the decay to -25 dB (about 0.8 s in CR2 at 500 Hz); a shorter IR shortens T20 a little
// through the backward integration (FDTD at 500 Hz: 2.2 s 0.949 of the measured T20, 1.6 s 0.944,
// 1.3 s 0.926).
inline std::vector<Cr2Band> bras_cr2_decays(const std::string& solver, double f_max,
                                            const ScratchDir& dir, double duration = 2.2,
                                            bool full = false) {
    const std::string tag =
        "cr2-" + solver + std::to_string(static_cast<int>(f_max)) + (full ? "-full" : "");
    const auto scene = dir.write(tag + ".json", bras_cr2_scene(solver, f_max, duration, full));
    const CommandResult r =
        run_ardent("simulate " + scene.string() + " -o " + (dir / tag).string(), dir.path());
    if (r.exit_code != 0) {
        ADD_FAILURE() << "ardent simulate failed: " << r.err;
        return {};
    }
    // Like the measured values: each octave the mean of its three third octaves' parameters (an
    // octave filter's single decay leans towards the octave's slowest third: at 8 kHz, where the
    // air's absorption grows across the octave, its T20 came out 12 % above the thirds' mean).
    std::map<double, std::array<double, 3>> sum, octave_filter;
    const double top = full ? 8000 : 0.7 * f_max;
    std::map<double, int> count;
    for (int k = 1; k <= 5; ++k) {
        const auto wav =
            audio::read_audio(dir / tag / "ir" / ("LS01_MP0" + std::to_string(k) + ".wav"));
        const auralize::Analysis a = auralize::analyze_ir(wav.samples, wav.sample_rate);
        const auralize::Analysis thirds =
            auralize::analyze_ir(wav.samples, wav.sample_rate, auralize::Bands::Third);
        for (const auto& b : a.results) {
            if (b.nominal_hz < 125 || b.nominal_hz > top || !b.t20_s || !b.edt_s || !b.c80_db)
                continue;
            std::array<double, 3> mean{};
            int n = 0;
            for (const auto& t : thirds.results) {
                const double ratio = t.exact_hz / b.exact_hz;
                if (ratio < 0.7 || ratio > 1.42 || !t.t20_s || !t.edt_s || !t.c80_db) continue;
                mean[0] += *t.t20_s / 3;
                mean[1] += *t.edt_s / 3;
                mean[2] += *t.c80_db / 3;
                ++n;
            }
            if (n != 3) continue;
            for (size_t i = 0; i < 3; ++i)
                sum[b.nominal_hz][i] += mean[i];
            octave_filter[b.nominal_hz][0] += *b.t20_s;
            octave_filter[b.nominal_hz][1] += *b.edt_s;
            octave_filter[b.nominal_hz][2] += *b.c80_db;
            ++count[b.nominal_hz];
        }
    }
    std::vector<Cr2Band> out;
    std::printf(
        "[ measured ] BRAS CR2, %s to %.0f Hz%s, LS01 to MP01-MP05 (mean), simulated / "
        "measured, each octave the mean of its third octaves [an octave filter's T20, EDT]:\n",
        solver.c_str(), f_max, full ? " + geometric (full band)" : "");
    for (const auto& [hz, s] : sum) {
        if (count[hz] != 5) continue;
        Cr2Band b{hz,
                  s[0] / 5,
                  s[1] / 5,
                  s[2] / 5,
                  bras_cr2_measured("T20", hz),
                  bras_cr2_measured("EDT", hz),
                  bras_cr2_measured("C80", hz)};
        std::printf(
            "[ measured ]   %4.0f Hz: T20 %.3f / %.3f s (%.3f), EDT %.3f / %.3f s (%.3f), C80 "
            "%.2f / %.2f dB (%+.2f) [%.3f s, %.3f s]\n",
            hz, b.t20, b.t20_measured, b.t20 / b.t20_measured, b.edt, b.edt_measured,
            b.edt / b.edt_measured, b.c80, b.c80_measured, b.c80 - b.c80_measured,
            octave_filter[hz][0] / 5, octave_filter[hz][1] / 5);
        out.push_back(b);
    }
    // For docs/validation.md's figure (scripts/plot_validation.py), with ARDENT_VALIDATION_OUT.
    std::vector<std::vector<double>> cols(7);
    for (const Cr2Band& b : out) {
        cols[0].push_back(b.hz);
        cols[1].push_back(b.t20);
        cols[2].push_back(b.t20_measured);
        cols[3].push_back(b.edt);
        cols[4].push_back(b.edt_measured);
        cols[5].push_back(b.c80);
        cols[6].push_back(b.c80_measured);
    }
    write_validation_csv("bras_cr2_" + solver + (full ? "-full" : "") + "_cpu_" +
                             std::to_string(static_cast<int>(f_max)) + ".csv",
                         {"octave_hz", "t20_s", "t20_measured_s", "edt_s", "edt_measured_s",
                          "c80_db", "c80_measured_db"},
                         cols);
    return out;
}

inline const Cr2Band* find_band(const std::vector<Cr2Band>& v, double hz) {
    for (const Cr2Band& b : v)
        if (b.hz == hz) return &b;
    return nullptr;
}

}  // namespace ardent::test
