#include "ardent/auralize/filter_bank.h"

#include "ardent/auralize/resample.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>
#include <string>

namespace ardent::auralize {
namespace {

using cplx = std::complex<double>;

// The octave frequency ratio of base-10 filters (IEC 61260-1:2014, 5.2.1).
const double kG = std::pow(10.0, 0.3);

// Nominal one-third-octave mid-band frequencies 50 Hz-10 kHz (IEC 61260-1:2014, Annex E); the
// octave bands are every third one from 63 Hz. Index 0 is band x = -13 (exact 1000 G^(-13/3)).
constexpr std::array<double, 24> kNominalThirds = {50,   63,   80,   100,  125,  160,  200,  250,
                                                   315,  400,  500,  630,  800,  1000, 1250, 1600,
                                                   2000, 2500, 3150, 4000, 5000, 6300, 8000, 10000};
constexpr int kFirstThird = -13;

// Bands end where libsamplerate's pass band (97 % of the Nyquist frequency) would start to cut
// them, with some room.
constexpr double kMaxUpperEdge = 0.45;
// A band whose upper edge is above this fraction of the rate it runs at is run at twice the rate
// (or four times). Measured: the class 1 limits of IEC 61260-1:2014 fail from about 0.25 (octaves)
// and 0.27 (thirds), those of the 1995 edition from about 0.19 and 0.23, all on the lower skirt.
constexpr double kMaxUpperEdgeAtRate = 0.16;

cplx response(const Biquad& s, cplx z) {
    const cplx zi = 1.0 / z;
    return (s.b0 + zi * (s.b1 + zi * s.b2)) / (1.0 + zi * (s.a1 + zi * s.a2));
}

}  // namespace

double BandFilter::gain(double f_hz) const {
    const cplx z = std::polar(1.0, 2 * std::numbers::pi * f_hz / sample_rate);
    double g = 1;
    for (const Biquad& s : sections)
        g *= std::abs(response(s, z));
    return g;
}

BandFilter design_band(double exact_hz, int fraction, double sample_rate) {
    if (!(sample_rate > 0) || !std::isfinite(sample_rate) || fraction < 1 || !(exact_hz > 0))
        throw std::invalid_argument("design_band: bad band or sample rate");
    BandFilter band;
    band.exact_hz = exact_hz;
    band.nominal_hz = exact_hz;
    band.sample_rate = sample_rate;
    const double half_band = std::pow(kG, 1.0 / (2.0 * fraction));
    band.lower_hz = exact_hz / half_band;
    band.upper_hz = exact_hz * half_band;
    if (band.upper_hz >= sample_rate / 2)
        throw std::invalid_argument("design_band: the band's upper edge " +
                                    std::to_string(band.upper_hz) +
                                    " Hz is not below the Nyquist frequency");

    // Analog band edges pre-warped for the bilinear transform s = (z - 1) / (z + 1), so that the
    // digital filter's -3 dB points fall exactly on the IEC band edges.
    const double w1 = std::tan(std::numbers::pi * band.lower_hz / sample_rate);
    const double w2 = std::tan(std::numbers::pi * band.upper_hz / sample_rate);
    const double bw = w2 - w1, w0sq = w1 * w2;

    // Third-order Butterworth low-pass prototype poles; the low-pass to band-pass substitution
    // s_lp = (s^2 + w0^2) / (bw s) turns each into the two roots of s^2 - p bw s + w0^2 = 0. Of
    // the six, the three in the upper half-plane each pair with their conjugate in one section.
    const double r3 = std::sqrt(3.0) / 2;
    std::vector<cplx> poles;
    for (cplx p : {cplx(-0.5, r3), cplx(-1, 0), cplx(-0.5, -r3)}) {
        const cplx disc = std::sqrt(p * p * bw * bw - 4 * w0sq);
        poles.push_back((p * bw + disc) / 2.0);
        poles.push_back((p * bw - disc) / 2.0);
    }
    std::sort(poles.begin(), poles.end(), [](cplx a, cplx b) { return a.imag() > b.imag(); });
    // The centre frequency at which the Butterworth band-pass peaks (gain 1).
    const cplx zc = std::polar(1.0, 2 * std::atan(std::sqrt(w0sq)));
    for (size_t i = 0; i < band.sections.size(); ++i) {
        if (!(poles[i].imag() > 0))
            throw std::invalid_argument("design_band: band too wide for this sample rate");
        const cplx zp = (1.0 + poles[i]) / (1.0 - poles[i]);
        Biquad s;
        // Zeros: one at s = 0 (z = 1) and one at s = infinity (z = -1) per section.
        s.b0 = 1;
        s.b1 = 0;
        s.b2 = -1;
        s.a1 = -2 * zp.real();
        s.a2 = std::norm(zp);
        const double g = 1 / std::abs(response(s, zc));
        s.b0 = g;
        s.b2 = -g;
        band.sections[i] = s;
    }
    return band;
}

std::vector<BandFilter> filter_bank(Bands bands, double sample_rate) {
    const int fraction = bands == Bands::Octave ? 1 : 3;
    const size_t first = bands == Bands::Octave ? 1 : 0;  // the octaves start at 63 Hz
    const size_t step = bands == Bands::Octave ? 3 : 1;
    std::vector<BandFilter> out;
    for (size_t i = first; i < kNominalThirds.size(); i += step) {
        const int x = kFirstThird + static_cast<int>(i);
        const double exact = 1000 * std::pow(kG, x / 3.0);
        const double upper = exact * std::pow(kG, 1.0 / (2.0 * fraction));
        if (upper > kMaxUpperEdge * sample_rate) break;
        int m = 1;
        while (upper > kMaxUpperEdgeAtRate * m * sample_rate)
            m *= 2;
        BandFilter b = design_band(exact, fraction, m * sample_rate);
        b.nominal_hz = kNominalThirds[i];
        b.oversampling = m;
        out.push_back(b);
    }
    return out;
}

std::vector<double> filter(const BandFilter& band, std::span<const double> x, Direction direction) {
    std::vector<double> y(x.begin(), x.end());
    if (direction == Direction::TimeReversed) std::reverse(y.begin(), y.end());
    // Transposed direct form II, one section at a time over the whole signal.
    for (const Biquad& s : band.sections) {
        double z1 = 0, z2 = 0;
        for (double& v : y) {
            const double in = v;
            const double out = s.b0 * in + z1;
            z1 = s.b1 * in - s.a1 * out + z2;
            z2 = s.b2 * in - s.a2 * out;
            v = out;
        }
    }
    if (direction == Direction::TimeReversed) std::reverse(y.begin(), y.end());
    return y;
}

std::vector<double> band_signal(const BandFilter& band, std::span<const float> x,
                                Direction direction) {
    if (band.oversampling == 1) {
        const std::vector<double> xd(x.begin(), x.end());
        return filter(band, xd, direction);
    }
    const double fs = band.sample_rate / band.oversampling;
    const std::vector<float> up = audio::resample(x, fs, band.sample_rate);
    const std::vector<double> xd(up.begin(), up.end());
    return filter(band, xd, direction);
}

}  // namespace ardent::auralize
