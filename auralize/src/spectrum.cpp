#include "ardent/auralize/spectrum.h"

#include <fftw3.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>

#include "fftw_plan.h"

namespace ardent::auralize {

std::vector<double> power_spectrum(std::span<const float> x, size_t n) {
    if (n == 0) throw std::invalid_argument("power_spectrum: n must be positive");
    const size_t bins = n / 2 + 1;
    struct Free {
        void operator()(void* p) const noexcept { fftw_free(p); }
    };
    std::unique_ptr<double[], Free> in(static_cast<double*>(fftw_malloc(sizeof(double) * n)));
    std::unique_ptr<fftw_complex[], Free> out(
        static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * bins)));
    if (!in || !out) throw std::bad_alloc();
    fftw_plan plan;
    {
        std::lock_guard lock(detail::planner_mutex());
        plan = fftw_plan_dft_r2c_1d(static_cast<int>(n), in.get(), out.get(), FFTW_ESTIMATE);
    }
    if (!plan) throw std::runtime_error("power_spectrum: FFTW could not plan the transform");
    const size_t m = std::min(n, x.size());
    for (size_t i = 0; i < m; ++i)
        in[i] = static_cast<double>(x[i]);
    std::fill(in.get() + m, in.get() + n, 0.0);
    fftw_execute(plan);
    std::vector<double> p(bins);
    for (size_t k = 0; k < bins; ++k)
        p[k] = out[k][0] * out[k][0] + out[k][1] * out[k][1];
    {
        std::lock_guard lock(detail::planner_mutex());
        fftw_destroy_plan(plan);
    }
    return p;
}

}  // namespace ardent::auralize
