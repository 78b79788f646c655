#include "fftw_plan.h"

#include <climits>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

namespace ardent::auralize::detail {
// FFTW's planner keeps global state (wisdom, twiddle caches): one plan at a time per process.
std::mutex& planner_mutex() {
    static std::mutex m;
    return m;
}

namespace {

fftwf_complex* as_fftw(std::complex<float>* p) {
    // std::complex<float> is layout-compatible with float[2] ([complex.numbers]), which is what
    // fftwf_complex is.
    return reinterpret_cast<fftwf_complex*>(p);
}

}  // namespace

FftwArray<float> alloc_floats(size_t n) {
    auto* p = fftwf_alloc_real(n == 0 ? 1 : n);
    if (!p) throw std::bad_alloc();
    for (size_t i = 0; i < n; ++i)
        p[i] = 0.0f;
    return FftwArray<float>(p);
}

FftwArray<std::complex<float>> alloc_complex(size_t n) {
    auto* p = reinterpret_cast<std::complex<float>*>(fftwf_alloc_complex(n == 0 ? 1 : n));
    if (!p) throw std::bad_alloc();
    for (size_t i = 0; i < n; ++i)
        p[i] = {};
    return FftwArray<std::complex<float>>(p);
}

RealFft::RealFft(size_t n, Planning planning, bool in_place) : n_(n) {
    if (n < 2 || n > static_cast<size_t>(INT_MAX))
        throw std::invalid_argument("RealFft: size " + std::to_string(n) + " out of range");
    // Measuring runs the transforms on the arrays, so plan on scratch arrays of the right
    // alignment; the plans are later executed on other arrays of the same alignment.
    FftwArray<float> real = alloc_floats(n);
    FftwArray<std::complex<float>> spectrum = alloc_complex(bins());
    const unsigned flags = planning == Planning::Measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    const int size = static_cast<int>(n);
    std::lock_guard lock(planner_mutex());
    // Measured plans an administrator stored with fftwf-wisdom serve every later plan of those
    // sizes, estimated ones included.
    static const bool system_wisdom = fftwf_import_system_wisdom() != 0;
    (void)system_wisdom;
    if (in_place) {
        auto* data = reinterpret_cast<float*>(spectrum.get());
        forward_ = fftwf_plan_dft_r2c_1d(size, data, as_fftw(spectrum.get()), flags);
        inverse_ = fftwf_plan_dft_c2r_1d(size, as_fftw(spectrum.get()), data, flags);
    } else {
        forward_ = fftwf_plan_dft_r2c_1d(size, real.get(), as_fftw(spectrum.get()), flags);
        inverse_ = fftwf_plan_dft_c2r_1d(size, as_fftw(spectrum.get()), real.get(), flags);
    }
    if (!forward_ || !inverse_) {
        if (forward_) fftwf_destroy_plan(forward_);
        if (inverse_) fftwf_destroy_plan(inverse_);
        throw std::runtime_error("FFTW could not plan a real transform of size " +
                                 std::to_string(n));
    }
}

RealFft::~RealFft() {
    std::lock_guard lock(planner_mutex());
    fftwf_destroy_plan(forward_);
    fftwf_destroy_plan(inverse_);
}

void RealFft::forward(const float* in, std::complex<float>* out) const {
    // An out-of-place real-to-complex transform never writes its input (FFTW's default
    // FFTW_PRESERVE_INPUT for r2c), so dropping const is safe.
    fftwf_execute_dft_r2c(forward_, const_cast<float*>(in), as_fftw(out));
}

void RealFft::inverse(std::complex<float>* in, float* out) const {
    fftwf_execute_dft_c2r(inverse_, as_fftw(in), out);
}

void RealFft::forward_in_place(float* data) const {
    fftwf_execute_dft_r2c(forward_, data, reinterpret_cast<fftwf_complex*>(data));
}

void RealFft::inverse_in_place(float* data) const {
    fftwf_execute_dft_c2r(inverse_, reinterpret_cast<fftwf_complex*>(data), data);
}

}  // namespace ardent::auralize::detail
