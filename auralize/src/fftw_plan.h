// Single-precision FFTW plans and buffers shared by the convolution engines (private to
// ardent_auralize). Plans are made once, under one process-wide lock because FFTW's planner is
// not thread-safe, and executed with FFTW's new-array interface so that one plan serves many
// buffers and threads (execution is thread-safe). Every buffer passed to a plan must come from
// alloc_floats / alloc_complex, so it has the SIMD alignment the plan was made for.
#pragma once

#include <fftw3.h>

#include <complex>
#include <cstddef>
#include <memory>
#include <mutex>

namespace ardent::auralize::detail {

// Held while making or destroying any FFTW plan (single or double precision) in this library.
std::mutex& planner_mutex();

struct FftwFree {
    void operator()(void* p) const noexcept { fftwf_free(p); }
};
template <typename T>
using FftwArray = std::unique_ptr<T[], FftwFree>;

// Zero-filled, SIMD-aligned arrays. Throw std::bad_alloc when FFTW cannot allocate.
FftwArray<float> alloc_floats(size_t n);
FftwArray<std::complex<float>> alloc_complex(size_t n);

// Double-precision estimated plans of size n, destroyed under planner_mutex() (for the analysis
// and ambisonics' one-off filters, which keep their signals in double).
struct DoublePlanFree {
    void operator()(fftw_plan_s* p) const noexcept;
};
using DoublePlan = std::unique_ptr<fftw_plan_s, DoublePlanFree>;
DoublePlan plan_r2c(size_t n, double* in, fftw_complex* out);
DoublePlan plan_c2r(size_t n, fftw_complex* in, double* out);

enum class Planning {
    Estimate,  // instant; FFTW guesses from the size
    Measure,   // times candidate algorithms (up to about a second per size): for sizes reused often
    // The plan cache's measured plan when it holds one, else estimated now and the size noted for
    // measuring later (take_plan_cache_report().to_measure): never slow, fast once measured.
    Learn,
};

// Real-to-complex and complex-to-real transforms of size n (n/2 + 1 bins). Unnormalised:
// inverse(forward(x)) = n x. In-place plans transform an array of n + 2 floats (2 * bins) that
// holds the real signal first and its spectrum after: one array instead of two saves memory
// traffic for large sizes.
class RealFft {
  public:
    RealFft(size_t n, Planning planning, bool in_place = false);
    ~RealFft();
    RealFft(const RealFft&) = delete;
    RealFft& operator=(const RealFft&) = delete;

    size_t size() const { return n_; }
    size_t bins() const { return n_ / 2 + 1; }
    // `in` is left unchanged (out-of-place plans).
    void forward(const float* in, std::complex<float>* out) const;
    // In-place plans: `data` holds n reals before, `bins()` complex values after (and back).
    void forward_in_place(float* data) const;
    void inverse_in_place(float* data) const;
    // Overwrites `in` (FFTW's complex-to-real transforms use their input as scratch).
    void inverse(std::complex<float>* in, float* out) const;

  private:
    size_t n_;
    fftwf_plan forward_ = nullptr, inverse_ = nullptr;
};

}  // namespace ardent::auralize::detail
