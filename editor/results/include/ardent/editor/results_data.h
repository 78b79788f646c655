// The Qt-free half of the editor's results panel: reading a results directory of `ardent
// simulate` (result.json and the receiver IRs, docs/output-format.md) with messages that name the
// file at fault, and turning an impulse response into what the charts draw: min/max columns of the
// waveform (so a 3 s IR draws as fast as a short one), its magnitude spectrum on log-spaced
// frequencies, and the ISO 3382-1 analysis with the decay curves it was computed from, run
// exactly as `ardent simulate` fills result.json's `acoustics` (octave bands up to 0.8 f_max).
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "ardent/auralize/analysis.h"

namespace ardent::editor {

// One source/receiver pair with its IR (mono, as the WAV file holds it).
struct ResultPair {
    std::string source, receiver;
    std::filesystem::path ir_file;  // absolute
    std::vector<float> ir;
    // The pair's AmbiX IR (ambix/<source>_<receiver>.wav, absolute), empty when the directory has
    // none (runs before the receivers' ambisonics existed).
    std::filesystem::path ambix_file;
    // The direct sound's arrival (the cell centres' distance over c, from result.json; the IR's
    // time zero is the emission), the analysis's onset; -1 when result.json does not give it.
    double direct_s = -1;
};

struct ResultsData {
    std::filesystem::path dir;
    double max_frequency_hz = 0;  // settings.max_frequency: the IRs are flat to 0.8 of it ...
    bool full_band = false;       // ... unless settings.band is "full" (docs/full-band.md)
    double crossover_hz = 0;      // a full-band run's (band.crossover_hz); 0 otherwise
    double sample_rate = 0;       // of the IRs
    std::vector<ResultPair> pairs;
    std::vector<std::filesystem::path> grids;  // grid/<source>.h5, absolute, as listed
};

// Reads result.json and every IR it lists. Throws InputError naming the file and what is wrong: a
// missing directory or result.json, JSON that does not parse or lacks a key, a listed IR that is
// missing, unreadable, not mono or at another sample rate than result.json says.
ResultsData read_results(const std::filesystem::path& dir);

// The name `ardent simulate` gives a file: characters other than letters, digits, '.', '-' and
// '_' become '_'.
std::string file_name_part(const std::string& name);

// For drawing a long signal in `columns` pixel columns: the minimum and maximum of each column's
// samples (columns of equal size, the last one shorter). With fewer samples than columns, one
// column per sample (min = max = the sample).
struct MinMax {
    float min = 0, max = 0;
};
std::vector<MinMax> min_max_columns(std::span<const float> x, size_t columns);

// |H(f)| in dB (20 lg of the DFT magnitude, so that the IR convention's 1/(4 pi r) reads as
// -22 dB at 1 m) on `points_per_octave` log-spaced frequencies from the lowest the IR's length
// resolves (at least `from_hz`) to `to_hz` (at most fs/2): each point the mean power of the DFT
// bins in its band, or the nearest bin where the band holds none. Floored at `floor_db` below the
// spectrum's peak so that a band-limited IR's empty top draws as a floor, not -infinity.
struct Spectrum {
    std::vector<double> hz, db;
};
Spectrum magnitude_spectrum_db(std::span<const float> ir, double fs, double from_hz, double to_hz,
                               int points_per_octave = 48, double floor_db = 120);

// The analysis behind the ISO 3382-1 table and the decay curves: auralize::analyze_ir on octave
// bands up to 0.8 max_frequency_hz (no limit for 0), with the curves kept; time zero at
// `direct_s` when it is >= 0 (else ISO 3382-1's rule).
auralize::Analysis analyze_pair(std::span<const float> ir, double fs, double max_frequency_hz,
                                double direct_s = -1);

}  // namespace ardent::editor
