// ISO 3382-1 room-acoustic parameters of an impulse response, per octave or one-third-octave
// band: early decay time EDT, reverberation times T20 and T30, clarity C50 and C80, definition
// D50 and centre time Ts. Each band is filtered (filter_bank.h, time-reversed), its background
// noise and truncation point found by Lundeby's method (lundeby.h), and its Schroeder integral
// taken with the noise removed and the hidden tail added (schroeder.h). Bands whose peak does not
// stand 35 / 45 dB above their noise floor have T20 / T30 marked unreliable, as ISO 3382-1 asks
// (and the EDT below 20 dB, by the same rule).
// docs/analysis.md describes the method and its measured accuracy.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/filter_bank.h"

namespace ardent::auralize {

struct BandResult {
    double nominal_hz = 0;              // 63, 125, ...
    double exact_hz = 0;                // 1000 * 10^(3x/10b)
    double lower_hz = 0, upper_hz = 0;  // the band's edges (IEC 61260-1)
    // Parameters; empty when the band's decay does not allow them (the decay curve does not
    // reach the end of the evaluation range before the noise, or the band carries no energy).
    std::optional<double> edt_s, t20_s, t30_s, c50_db, c80_db, d50, ts_s;
    // Strength G (ISO 3382-1): the band's energy over a free-field IR's at 10 m from the same
    // source, in dB; only for an IR whose scale is known (AnalysisOptions::free_field_10m).
    std::optional<double> g_db;
    // T20 / T30 were measured with the dynamic range ISO 3382-1 asks for: the band's peak at
    // least 35 / 45 dB above its noise floor, so that the end of the evaluation range (-25 /
    // -35 dB) lies 10 dB above the noise. The EDT is held to the same rule, 20 dB for its range
    // down to -10 dB (ISO 3382-1 sets none for it). A value without it is still given, marked.
    bool edt_reliable = false, t20_reliable = false, t30_reliable = false;
    // The background noise's mean square in dB re the band's peak (its negative is the peak-to-
    // noise ratio); -infinity when the response ends in exact zeros.
    double noise_floor_db = 0;
    double truncation_s = 0;  // Lundeby's truncation point, seconds from the IR's first sample
    bool truncation_converged = false;
    // With AnalysisOptions::keep_decay_curves: the Schroeder decay curve the times were fitted to
    // (dB re its start, from the onset to where it ends), at decay_rate_hz (the band's filter
    // rate, which may be a multiple of the IR's). Empty otherwise.
    std::vector<float> decay_db;
    double decay_rate_hz = 0;
};

struct Analysis {
    double sample_rate = 0;
    Bands bands = Bands::Octave;
    double length_s = 0;
    // The onset of the direct sound, seconds from the first sample; the parameters' time zero.
    // Given (AnalysisOptions::onset_s, e.g. a simulated IR's source-receiver distance over c), or
    // by ISO 3382-1's rule: where the squared IR, restricted to the analysed bands' range, first
    // comes within 20 dB of its maximum.
    double onset_s = 0;
    bool onset_given = false;
    // Bands whose upper edge lies above this were left out (AnalysisOptions::max_frequency_hz;
    // 0: none).
    double valid_to_hz = 0;
    std::vector<BandResult> results;
};

struct AnalysisOptions {
    // Time-reversed filtering keeps the band filters' ringing out of the decays (docs/analysis.md);
    // Forward is there to compare.
    Direction direction = Direction::TimeReversed;
    // The highest frequency the IR is good for, when it is band-limited (a simulated IR is flat to
    // 0.8 max_frequency): bands whose upper edge lies above it are left out. 0: no limit.
    double max_frequency_hz = 0;
    // The direct sound's arrival in seconds from the first sample, when it is known (a simulated
    // IR: the source-receiver distance over the speed of sound); < 0: ISO 3382-1's rule.
    double onset_s = -1;
    // The free-field IR at 10 m from the source, in the IR's own units, as the sum of its
    // samples (its spectrum's level): an Ardent IR (docs/output-format.md: a unit monopole's
    // direct sound sums to 1 / (4 pi r)) has 1 / (40 pi). Then each band's strength G is its
    // energy over that impulse's through the same band filter. 0: unknown, no G.
    double free_field_10m = 0;
    // Keep each band's decay curve in BandResult::decay_db (for plots: the editor's energy decay
    // curves are then exactly the ones the parameters come from).
    bool keep_decay_curves = false;
};

// Analyses one channel of an IR at fs Hz. Throws InputError (errors.h) for an empty or silent IR,
// samples that are NaN or infinite, a sample rate outside 1 kHz-1 MHz, or a rate (or
// max_frequency_hz) so low that no band fits; the messages say what is wrong, the caller adds
// where.
Analysis analyze_ir(std::span<const float> ir, double fs, Bands bands = Bands::Octave,
                    const AnalysisOptions& options = {});

// {"sample_rate", "band_type": "octave" | "third", "length_s", "onset_s", "onset_from":
// "given" | "iso-3382-1", "valid_to_hz" (null: no limit), "bands": [...]}: one
// object per band with "centre_hz" (nominal), "exact_centre_hz", "edt_s", "t20_s", "t30_s",
// "c50_db", "c80_db", "d50", "ts_s", "g_db" (null where not measurable or, for G, where the IR's
// scale is not known), "edt_reliable", "t20_reliable",
// "t30_reliable",
// "noise_floor_db" (null for no noise), "truncation_s", "truncation_converged". Keys in
// docs/analysis.md.
nlohmann::ordered_json to_json(const Analysis& analysis);

}  // namespace ardent::auralize
