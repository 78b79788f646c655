#include "ardent/auralize/analysis.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include <fftw3.h>

#include "ardent/auralize/lundeby.h"
#include "ardent/auralize/schroeder.h"
#include "ardent/preprocess/errors.h"
#include "fftw_plan.h"

namespace ardent::auralize {
namespace {

constexpr double kMinRate = 1000, kMaxRate = 1e6;
// ISO 3382-1: the peak must stand this far above the noise for T20 and T30, so that the end of
// the evaluation range lies 10 dB above the noise; the same rule for the EDT's range.
constexpr double kRangeEdtDb = 20, kRangeT20Db = 35, kRangeT30Db = 45;

// Lundeby's first averaging interval: 10 ms (the paper's shortest), longer in the lowest bands
// so that each interval spans several periods of the squared signal's ripple, at most 50 ms.
double first_interval_s(double centre_hz) {
    return std::clamp(4 / centre_hz, 0.010, 0.050);
}

size_t index_at(double t, double fs) {
    return static_cast<size_t>(std::max(0.0, std::round(t * fs)));
}

// The whole energy `x` leaves in `band` (its filters, `direction`), with room on either side for
// the filters' ringing: time-reversed filtering rings before an event, and an IR whose direct
// sound comes a few milliseconds after its first sample would lose that part in the low bands.
double band_energy(const BandFilter& band, std::span<const float> x, double fs,
                   Direction direction) {
    const auto pad = static_cast<size_t>(std::ceil(std::max(0.5, 40.0 / band.lower_hz) * fs));
    std::vector<float> padded(x.size() + 2 * pad, 0.0f);
    std::copy(x.begin(), x.end(), padded.begin() + static_cast<long>(pad));
    double e = 0;
    for (double v : band_signal(band, padded, direction))
        e += v * v;
    return e;
}

BandResult analyze_band(const BandFilter& band, std::span<const float> ir, double onset_s,
                        Direction direction, bool keep_curve, double ir_fs, double free_field_10m) {
    BandResult r;
    r.nominal_hz = band.nominal_hz;
    r.exact_hz = band.exact_hz;
    r.lower_hz = band.lower_hz;
    r.upper_hz = band.upper_hz;
    const double fs = band.sample_rate;
    std::vector<double> e = band_signal(band, ir, direction);
    for (double& v : e)
        v *= v;
    r.truncation_s = static_cast<double>(e.size()) / fs;
    const double peak = *std::max_element(e.begin(), e.end());
    if (!(peak > 0)) {
        r.noise_floor_db = -std::numeric_limits<double>::infinity();
        return r;
    }
    const size_t n0 = std::min(index_at(onset_s, fs), e.size() - 1);

    const NoiseEstimate noise =
        lundeby(std::span<const double>(e).subspan(n0), fs, first_interval_s(band.exact_hz));
    r.noise_floor_db = noise.noise > 0 ? 10 * std::log10(noise.noise / peak)
                                       : -std::numeric_limits<double>::infinity();
    const size_t nc = std::min(e.size(), n0 + index_at(noise.truncation_s, fs));
    r.truncation_s = static_cast<double>(nc) / fs;
    r.truncation_converged = noise.converged;
    const BackwardIntegral integral(e, fs, nc, noise);

    // Decay times from the curve that starts at the onset.
    const std::vector<double> curve = decay_curve_db(integral, n0);
    r.edt_s = decay_time(curve, fs, 0, -10);
    r.t20_s = decay_time(curve, fs, -5, -25);
    r.t30_s = decay_time(curve, fs, -5, -35);
    r.edt_reliable = r.edt_s && r.noise_floor_db <= -kRangeEdtDb;
    r.t20_reliable = r.t20_s && r.noise_floor_db <= -kRangeT20Db;
    r.t30_reliable = r.t30_s && r.noise_floor_db <= -kRangeT30Db;
    if (keep_curve) {
        r.decay_db.assign(curve.begin(), curve.end());
        r.decay_rate_hz = fs;
    }

    // Energies from the first sample: with time-reversed filtering the band's share of the
    // direct sound starts before the onset, and belongs to the early part.
    const double total = integral.from(0);
    if (total > 0) {
        const double late50 = integral.from(n0 + index_at(0.050, fs));
        const double late80 = integral.from(n0 + index_at(0.080, fs));
        if (late50 > 0 && total > late50) {
            r.c50_db = 10 * std::log10((total - late50) / late50);
            r.d50 = (total - late50) / total;
        }
        if (late80 > 0 && total > late80) r.c80_db = 10 * std::log10((total - late80) / late80);
        // Energy before the onset counts at time zero.
        r.ts_s = integral.moment(n0) / total;
        if (free_field_10m > 0) {
            // The free-field IR at 10 m is an impulse summing to free_field_10m.
            const float impulse[] = {1.0f};
            const double reference =
                free_field_10m * free_field_10m * band_energy(band, impulse, ir_fs, direction);
            const double energy = band_energy(band, ir, ir_fs, direction);
            if (reference > 0 && energy > 0) r.g_db = 10 * std::log10(energy / reference);
        }
    }
    return r;
}

// 0 below lo, 1 above hi, a raised cosine in log frequency between.
double rise(double f, double lo, double hi) {
    if (f <= lo) return 0;
    if (f >= hi) return 1;
    return 0.5 - 0.5 * std::cos(std::numbers::pi * std::log(f / lo) / std::log(hi / lo));
}

// ISO 3382-1's onset (the squared IR's first sample within 20 dB of its maximum) on the IR
// restricted, zero-phase, to [lo_hz, hi_hz] (half-octave transitions outside): the analysed
// bands' range. A band-limited simulated IR carries sound outside its bands: a closed room's
// static pressure rise, band-limited, rings long before the direct sound, and on the whole IR
// the rule found onsets of 0 ms where the direct sound arrived at 16 ms.
size_t iso_onset(std::span<const float> ir, double fs, double lo_hz, double hi_hz) {
    size_t n = 1;
    while (n < 2 * ir.size())
        n *= 2;
    std::vector<double> x(n, 0.0);
    std::copy(ir.begin(), ir.end(), x.begin());
    std::vector<std::complex<double>> spec(n / 2 + 1);
    auto* cs = reinterpret_cast<fftw_complex*>(spec.data());
    fftw_execute(detail::plan_r2c(n, x.data(), cs).get());
    const double top = std::min(std::sqrt(2.0) * hi_hz, 0.5 * fs);
    for (size_t k = 0; k < spec.size(); ++k) {
        const double f = static_cast<double>(k) * fs / static_cast<double>(n);
        const double up =
            hi_hz >= 0.5 * fs ? 1.0 : 1 - rise(f, hi_hz, std::max(top, hi_hz * 1.001));
        spec[k] *= rise(f, lo_hz / std::sqrt(2.0), lo_hz) * up;
    }
    fftw_execute(detail::plan_c2r(n, cs, x.data()).get());
    double peak = 0;
    for (size_t i = 0; i < ir.size(); ++i)
        peak = std::max(peak, x[i] * x[i]);
    size_t onset = 0;
    while (onset + 1 < ir.size() && x[onset] * x[onset] < 0.01 * peak)
        ++onset;
    return onset;
}

std::string hz(double fs) {
    std::string s = std::to_string(fs);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s + " Hz";
}

}  // namespace

Analysis analyze_ir(std::span<const float> ir, double fs, Bands bands,
                    const AnalysisOptions& options) {
    if (!std::isfinite(fs) || fs < kMinRate || fs > kMaxRate)
        throw InputError("sample rate " + hz(fs) + " is outside the " + hz(kMinRate) + " to " +
                         hz(kMaxRate) + " this analysis accepts");
    if (ir.empty()) throw InputError("the impulse response has no samples");
    double peak = 0;
    for (size_t i = 0; i < ir.size(); ++i) {
        const double v = static_cast<double>(ir[i]);
        if (!std::isfinite(v))
            throw InputError("sample " + std::to_string(i) + " of the impulse response is " +
                             (std::isnan(v) ? "NaN" : "infinite"));
        peak = std::max(peak, v * v);
    }
    if (!(peak > 0)) throw InputError("the impulse response is silent (every sample is zero)");

    Analysis a;
    a.sample_rate = fs;
    a.bands = bands;
    a.length_s = static_cast<double>(ir.size()) / fs;
    std::vector<BandFilter> bank = filter_bank(bands, fs);
    const char* kind = bands == Bands::Octave ? "octave" : "one-third-octave";
    if (bank.empty())
        throw InputError("sample rate " + hz(fs) + " is too low for any " + kind + " band");
    if (options.max_frequency_hz > 0) {
        std::erase_if(bank,
                      [&](const BandFilter& b) { return b.upper_hz > options.max_frequency_hz; });
        if (bank.empty())
            throw InputError("no " + std::string(kind) + " band lies below " +
                             hz(options.max_frequency_hz));
        a.valid_to_hz = options.max_frequency_hz;
    }
    if (options.onset_s >= 0) {
        a.onset_s = options.onset_s;
        a.onset_given = true;
    } else {
        a.onset_s =
            static_cast<double>(iso_onset(ir, fs, bank.front().lower_hz, bank.back().upper_hz)) /
            fs;
    }
    for (const BandFilter& band : bank)
        a.results.push_back(analyze_band(band, ir, a.onset_s, options.direction,
                                         options.keep_decay_curves, fs, options.free_field_10m));
    return a;
}

nlohmann::ordered_json to_json(const Analysis& a) {
    auto opt = [](const std::optional<double>& v) -> nlohmann::ordered_json {
        if (v && std::isfinite(*v)) return *v;
        return nullptr;
    };
    nlohmann::ordered_json j;
    j["sample_rate"] = a.sample_rate;
    j["band_type"] = a.bands == Bands::Octave ? "octave" : "third";
    j["length_s"] = a.length_s;
    j["onset_s"] = a.onset_s;
    j["onset_from"] = a.onset_given ? "given" : "iso-3382-1";
    j["valid_to_hz"] = a.valid_to_hz > 0 ? nlohmann::ordered_json(a.valid_to_hz) : nullptr;
    j["bands"] = nlohmann::ordered_json::array();
    for (const BandResult& r : a.results) {
        nlohmann::ordered_json b;
        b["centre_hz"] = r.nominal_hz;
        b["exact_centre_hz"] = r.exact_hz;
        b["lower_hz"] = r.lower_hz;
        b["upper_hz"] = r.upper_hz;
        b["edt_s"] = opt(r.edt_s);
        b["t20_s"] = opt(r.t20_s);
        b["t30_s"] = opt(r.t30_s);
        b["c50_db"] = opt(r.c50_db);
        b["c80_db"] = opt(r.c80_db);
        b["d50"] = opt(r.d50);
        b["ts_s"] = opt(r.ts_s);
        b["g_db"] = opt(r.g_db);
        b["edt_reliable"] = r.edt_reliable;
        b["t20_reliable"] = r.t20_reliable;
        b["t30_reliable"] = r.t30_reliable;
        b["noise_floor_db"] = opt(r.noise_floor_db);
        b["truncation_s"] = r.truncation_s;
        b["truncation_converged"] = r.truncation_converged;
        j["bands"].push_back(b);
    }
    return j;
}

}  // namespace ardent::auralize
