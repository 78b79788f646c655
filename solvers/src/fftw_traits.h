// FFTW's float and double APIs behind one name, so the ARD CPU backend is written once.
#pragma once

#include <fftw3.h>

namespace ardent::ard {

template <typename Real>
struct Fftw;

template <>
struct Fftw<float> {
    using Plan = fftwf_plan;
    static Plan r2r_3d(int n0, int n1, int n2, float* in, float* out, fftw_r2r_kind k,
                       unsigned flags) {
        return fftwf_plan_r2r_3d(n0, n1, n2, in, out, k, k, k, flags);
    }
    static void execute(Plan p, float* in, float* out) { fftwf_execute_r2r(p, in, out); }
    static void destroy(Plan p) { fftwf_destroy_plan(p); }
    static float* alloc(size_t n) { return fftwf_alloc_real(n); }
    static void free(float* p) { fftwf_free(p); }
    static int import_wisdom(const char* f) { return fftwf_import_wisdom_from_filename(f); }
    static int export_wisdom(const char* f) { return fftwf_export_wisdom_to_filename(f); }
    static void time_limit(double s) { fftwf_set_timelimit(s); }
    static constexpr const char* tag = "float";
};

template <>
struct Fftw<double> {
    using Plan = fftw_plan;
    static Plan r2r_3d(int n0, int n1, int n2, double* in, double* out, fftw_r2r_kind k,
                       unsigned flags) {
        return fftw_plan_r2r_3d(n0, n1, n2, in, out, k, k, k, flags);
    }
    static void execute(Plan p, double* in, double* out) { fftw_execute_r2r(p, in, out); }
    static void destroy(Plan p) { fftw_destroy_plan(p); }
    static double* alloc(size_t n) { return fftw_alloc_real(n); }
    static void free(double* p) { fftw_free(p); }
    static int import_wisdom(const char* f) { return fftw_import_wisdom_from_filename(f); }
    static int export_wisdom(const char* f) { return fftw_export_wisdom_to_filename(f); }
    static void time_limit(double s) { fftw_set_timelimit(s); }
    static constexpr const char* tag = "double";
};

}  // namespace ardent::ard
