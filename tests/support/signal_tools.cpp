#include "signal_tools.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "ardent/preprocess/fftw_planner.h"

namespace ardent::test {
namespace {

constexpr double kPi = 3.14159265358979323846;

// FFTW's planner is not thread-safe: the process-wide lock (a test's own FFTs may run while a
// run it started plans).
std::mutex& planner_mutex() {
    return fftw_planner_mutex();
}

struct FftwBuffer {
    explicit FftwBuffer(size_t bytes) : p(fftw_malloc(bytes)) {
        if (!p) throw std::bad_alloc();
    }
    ~FftwBuffer() { fftw_free(p); }
    FftwBuffer(const FftwBuffer&) = delete;
    FftwBuffer& operator=(const FftwBuffer&) = delete;
    void* p;
};

int as_int(size_t n) {
    if (n > static_cast<size_t>(std::numeric_limits<int>::max()))
        throw std::length_error("FFT too large");
    return static_cast<int>(n);
}

// Forward real FFT of `in` (length n) into n/2 + 1 complex bins.
std::vector<std::complex<double>> forward(const std::vector<double>& in) {
    const size_t n = in.size();
    FftwBuffer rbuf(n * sizeof(double));
    FftwBuffer cbuf((n / 2 + 1) * sizeof(fftw_complex));
    auto* r = static_cast<double*>(rbuf.p);
    auto* c = static_cast<fftw_complex*>(cbuf.p);
    fftw_plan plan;
    {
        std::lock_guard lock(planner_mutex());
        plan = fftw_plan_dft_r2c_1d(as_int(n), r, c, FFTW_ESTIMATE);
    }
    std::copy(in.begin(), in.end(), r);
    fftw_execute(plan);
    std::vector<std::complex<double>> out(n / 2 + 1);
    for (size_t k = 0; k < out.size(); ++k)
        out[k] = {c[k][0], c[k][1]};
    {
        std::lock_guard lock(planner_mutex());
        fftw_destroy_plan(plan);
    }
    return out;
}

// Inverse of forward() (normalised), n real samples.
std::vector<double> inverse(const std::vector<std::complex<double>>& in, size_t n) {
    FftwBuffer rbuf(n * sizeof(double));
    FftwBuffer cbuf((n / 2 + 1) * sizeof(fftw_complex));
    auto* r = static_cast<double*>(rbuf.p);
    auto* c = static_cast<fftw_complex*>(cbuf.p);
    fftw_plan plan;
    {
        std::lock_guard lock(planner_mutex());
        plan = fftw_plan_dft_c2r_1d(as_int(n), c, r, FFTW_ESTIMATE);
    }
    for (size_t k = 0; k < n / 2 + 1; ++k) {
        c[k][0] = in[k].real();
        c[k][1] = in[k].imag();
    }
    fftw_execute(plan);
    std::vector<double> out(r, r + n);
    for (double& v : out)
        v /= static_cast<double>(n);
    {
        std::lock_guard lock(planner_mutex());
        fftw_destroy_plan(plan);
    }
    return out;
}

// Raised-cosine edge: 0 at x <= 0, 1 at x >= 1.
double ramp(double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    return 0.5 - 0.5 * std::cos(kPi * x);
}

}  // namespace

size_t fast_fft_size(size_t n) {
    for (size_t m = std::max<size_t>(n, 1);; ++m) {
        size_t r = m;
        for (size_t p : {2u, 3u, 5u})
            while (r % p == 0)
                r /= p;
        if (r == 1) return m;
    }
}

std::vector<std::complex<double>> real_fft(std::span<const double> x, size_t n) {
    if (n < x.size()) throw std::invalid_argument("real_fft: n shorter than the signal");
    std::vector<double> in(n, 0.0);
    std::copy(x.begin(), x.end(), in.begin());
    return forward(in);
}

std::vector<double> inverse_real_fft(const std::vector<std::complex<double>>& spectrum, size_t n) {
    if (spectrum.size() != n / 2 + 1)
        throw std::invalid_argument("inverse_real_fft: expected n / 2 + 1 bins");
    return inverse(spectrum, n);
}

std::vector<double> bandpass(std::span<const double> x, double fs, double lo, double hi,
                             double taper) {
    if (x.empty()) return {};
    const size_t n = fast_fft_size(2 * x.size());
    auto spec = real_fft(x, n);
    const double df = fs / static_cast<double>(n);
    for (size_t k = 0; k < spec.size(); ++k) {
        const double f = static_cast<double>(k) * df;
        const double lo_edge =
            lo * taper > 0 ? ramp((f - lo * (1 - taper)) / (lo * taper)) : (f >= lo ? 1.0 : 0.0);
        const double hi_edge =
            hi * taper > 0 ? ramp((hi * (1 + taper) - f) / (hi * taper)) : (f <= hi ? 1.0 : 0.0);
        spec[k] *= lo_edge * hi_edge;
    }
    auto out = inverse(spec, n);
    out.resize(x.size());
    return out;
}

double sum_of_squares(std::span<const double> x) {
    double s = 0;
    for (double v : x)
        s += v * v;
    return s;
}

double least_squares_slope(std::span<const double> x, std::span<const double> y) {
    const double n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        mx += x[i] / n;
        my += y[i] / n;
    }
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxy / sxx;
}

double relative_l2(std::span<const double> x, std::span<const double> ref) {
    const size_t n = std::min(x.size(), ref.size());
    double num = 0, den = 0;
    for (size_t i = 0; i < n; ++i) {
        num += (x[i] - ref[i]) * (x[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    if (den == 0) throw std::invalid_argument("relative_l2: reference is zero");
    return std::sqrt(num / den);
}

std::vector<double> time_window(std::span<const double> x, size_t first, size_t last) {
    std::vector<double> out(x.size(), 0.0);
    for (size_t i = first; i < std::min(last, x.size()); ++i)
        out[i] = x[i];
    return out;
}

Spectrum magnitude_spectrum(std::span<const double> x, double fs, Window window, size_t pad) {
    std::vector<double> w(x.begin(), x.end());
    if (window == Window::Hann && w.size() > 1) {
        const double m = static_cast<double>(w.size() - 1);
        for (size_t i = 0; i < w.size(); ++i)
            w[i] *= 0.5 - 0.5 * std::cos(2 * kPi * static_cast<double>(i) / m);
    }
    const size_t n = fast_fft_size(std::max<size_t>(1, pad) * std::max<size_t>(w.size(), 2));
    const auto spec = real_fft(w, n);
    Spectrum s;
    s.df = fs / static_cast<double>(n);
    s.magnitude.resize(spec.size());
    for (size_t k = 0; k < spec.size(); ++k)
        s.magnitude[k] = std::abs(spec[k]);
    return s;
}

double peak_frequency(const Spectrum& s, double f_lo, double f_hi) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (s.magnitude.size() < 3 || s.df <= 0) return nan;
    const auto first = static_cast<size_t>(std::max(1.0, std::ceil(f_lo / s.df)));
    const auto last =
        std::min(s.magnitude.size() - 2, static_cast<size_t>(std::floor(f_hi / s.df)));
    if (first > last) return nan;
    size_t best = first;
    for (size_t k = first; k <= last; ++k)
        if (s.magnitude[k] > s.magnitude[best]) best = k;
    const double tiny = 1e-300;
    const double a = std::log(s.magnitude[best - 1] + tiny);
    const double b = std::log(s.magnitude[best] + tiny);
    const double c = std::log(s.magnitude[best + 1] + tiny);
    const double den = a - 2 * b + c;
    double delta = den < 0 ? 0.5 * (a - c) / den : 0.0;
    delta = std::clamp(delta, -0.5, 0.5);
    return (static_cast<double>(best) + delta) * s.df;
}

std::vector<Band> third_octave_bands(double f_lo, double f_hi) {
    std::vector<Band> bands;
    const double edge = std::pow(2.0, 1.0 / 6.0);
    for (int k = -40; k <= 30; ++k) {
        const double centre = 1000.0 * std::pow(2.0, k / 3.0);
        const Band b{centre, centre / edge, centre * edge};
        if (b.lo >= f_lo && b.hi <= f_hi) bands.push_back(b);
    }
    return bands;
}

std::vector<double> band_energies(const Spectrum& s, const std::vector<Band>& bands) {
    std::vector<double> e(bands.size(), 0.0);
    for (size_t b = 0; b < bands.size(); ++b)
        for (size_t k = 0; k < s.magnitude.size(); ++k) {
            const double f = s.frequency(k);
            if (f >= bands[b].lo && f < bands[b].hi) e[b] += s.magnitude[k] * s.magnitude[k];
        }
    return e;
}

double to_db(double energy_ratio) {
    return energy_ratio > 0 ? 10.0 * std::log10(energy_ratio) : -300.0;
}

std::filesystem::path validation_out_dir() {
    const char* dir = std::getenv("ARDENT_VALIDATION_OUT");
    return dir && *dir ? std::filesystem::path(dir) : std::filesystem::path();
}

void write_validation_csv(const std::string& name, const std::vector<std::string>& header,
                          const std::vector<std::vector<double>>& columns) {
    const auto dir = validation_out_dir();
    if (dir.empty()) return;
    if (header.size() != columns.size())
        throw std::invalid_argument("write_validation_csv: header and columns differ");
    size_t rows = columns.empty() ? 0 : columns[0].size();
    for (const auto& c : columns)
        if (c.size() != rows) throw std::invalid_argument("write_validation_csv: ragged columns");
    std::filesystem::create_directories(dir);
    std::ofstream out(dir / name);
    if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
    for (size_t i = 0; i < header.size(); ++i)
        out << (i ? "," : "") << header[i];
    out << '\n' << std::setprecision(10);
    for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < columns.size(); ++c)
            out << (c ? "," : "") << columns[c][r];
        out << '\n';
    }
}

}  // namespace ardent::test
