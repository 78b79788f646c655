#include "ardent/solvers/ard_source.h"

#include <cmath>
#include <complex>

#include <fftw3.h>

namespace ardent::ard {

std::vector<double> source_signal(const Excitation& g, double dt) {
    const size_t n = static_cast<size_t>(std::ceil(2 * g.delay() / dt)) + 1;
    size_t nfft = 1;
    while (nfft < 4 * n)
        nfft <<= 1;  // zero padding keeps the circular filter's wrap-around away
    std::vector<double> x(nfft, 0.0);
    for (size_t i = 0; i < n; ++i)
        x[i] = g(static_cast<double>(i) * dt);
    std::vector<std::complex<double>> spec(nfft / 2 + 1);
    fftw_plan fwd =
        fftw_plan_dft_r2c_1d(static_cast<int>(nfft), x.data(),
                             reinterpret_cast<fftw_complex*>(spec.data()), FFTW_ESTIMATE);
    fftw_plan bwd =
        fftw_plan_dft_c2r_1d(static_cast<int>(nfft), reinterpret_cast<fftw_complex*>(spec.data()),
                             x.data(), FFTW_ESTIMATE);
    fftw_execute(fwd);
    const double pi = 3.14159265358979323846;
    const double x_max = 2 * pi * g.f_max * dt;  // nothing to equalise above f_max
    for (size_t k = 0; k < spec.size(); ++k) {
        const double w =
            std::min(2 * pi * static_cast<double>(k) / static_cast<double>(nfft), x_max);
        const double gain = w < 1e-9 ? 1.0 : std::tan(w / 2) / (w / 2);
        spec[k] /= gain * static_cast<double>(nfft);
    }
    fftw_execute(bwd);
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    x.resize(n);
    return x;
}

}  // namespace ardent::ard
