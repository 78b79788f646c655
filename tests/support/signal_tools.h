// Signal utilities for the solver validation tests: a zero-phase FFT band-pass, relative L2 error,
// magnitude spectra with parabolic peak interpolation, third-octave band energies, and a small
// CSV writer for the plots in docs/validation.md. All use FFTW in double precision.
#pragma once

#include <complex>
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace ardent::test {

// Smallest size >= n whose only prime factors are 2, 3 and 5 (fast for FFTW).
size_t fast_fft_size(size_t n);

// Spectrum of a real signal zero-padded to `n` samples (n >= x.size()): bins 0..n/2.
std::vector<std::complex<double>> real_fft(std::span<const double> x, size_t n);
// Its inverse: n real samples from bins 0..n/2 (normalised, so inverse(real_fft(x, n)) = x).
std::vector<double> inverse_real_fft(const std::vector<std::complex<double>>& spectrum, size_t n);

// Zero-phase band-pass: the signal, zero-padded to at least twice its length (so nothing wraps
// around), is multiplied in the frequency domain by a real mask that is 1 on [lo, hi] and falls to
// 0 with raised-cosine edges over [lo (1 - taper), lo] and [hi, hi (1 + taper)]. Same length out.
std::vector<double> bandpass(std::span<const double> x, double fs, double lo, double hi,
                             double taper = 0.1);

// ||x - ref|| / ||ref|| over the common length of both (ref must not be all zero).
double relative_l2(std::span<const double> x, std::span<const double> ref);

double sum_of_squares(std::span<const double> x);

// The least-squares slope of y over x (same length, at least two distinct x): decay rates of
// levels over time.
double least_squares_slope(std::span<const double> x, std::span<const double> y);

// Copy of x[first, last) (clipped to x's length), the rest zero: a rectangular time window.
std::vector<double> time_window(std::span<const double> x, size_t first, size_t last);

enum class Window { Rectangular, Hann };

// Magnitude spectrum |X(k df)|, k = 0..n/2, of the windowed signal zero-padded `pad` times.
struct Spectrum {
    double df = 0;  // Hz per bin
    std::vector<double> magnitude;
    double frequency(size_t k) const { return static_cast<double>(k) * df; }
};
Spectrum magnitude_spectrum(std::span<const double> x, double fs, Window window = Window::Hann,
                            size_t pad = 1);

// Frequency of the largest bin in [f_lo, f_hi], refined by a parabola through the log magnitudes
// of it and its two neighbours. Returns NaN when the range holds no interior bin.
double peak_frequency(const Spectrum& s, double f_lo, double f_hi);

// Third-octave bands (centres 1000 * 2^(k/3)) whose edges lie within [f_lo, f_hi].
struct Band {
    double centre = 0, lo = 0, hi = 0;
};
std::vector<Band> third_octave_bands(double f_lo, double f_hi);

// Energy (sum of |X|^2 over the bins inside the band) of a magnitude spectrum, per band.
std::vector<double> band_energies(const Spectrum& s, const std::vector<Band>& bands);

double to_db(double energy_ratio);  // 10 log10, -300 for zero

// Writes a CSV with a header line and equal-length columns into $ARDENT_VALIDATION_OUT/<name>
// when that variable is set (creating the folder); does nothing otherwise.
void write_validation_csv(const std::string& name, const std::vector<std::string>& header,
                          const std::vector<std::vector<double>>& columns);
// The folder ARDENT_VALIDATION_OUT names, or empty.
std::filesystem::path validation_out_dir();

}  // namespace ardent::test
