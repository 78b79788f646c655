// The power spectrum of a real signal through FFTW (double precision), for display and analysis
// code outside the convolution engines, such as the editor's spectrum chart. Plans are made under
// the library's planner lock, so callers on any thread may use it while the engines plan.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ardent::auralize {

// |X[k]|^2 for k = 0 .. n/2 of the DFT of `x` zero-padded (or cut) to `n` samples, n >= 1.
std::vector<double> power_spectrum(std::span<const float> x, size_t n);

}  // namespace ardent::auralize
