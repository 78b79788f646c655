// Kernels of the batched 3-D DCT the CUDA backend runs per partition shape (spec section 5):
// Makhoul's method per axis, i.e. an even/odd reordering, a real FFT (cuFFT) and a twiddle. The
// twiddle of one axis is fused with the reordering of the next and with a rotation of the axes,
// so every cuFFT call sees contiguous rows. Scaling matches FFTW's REDFT10 (forward, factor 2 per
// axis) and REDFT01 (inverse), so the CPU backend's mode coefficients apply unchanged.
//
// Layouts of one shape group (P partitions of nx x ny x nz cells), fastest index last:
//   field and force  [p][z][y][x]
//   forward: x rows  [p][z][y][x'], y rows [p][z][kx][y'], z rows [p][ky][kx][z']
//   modes            [p][ky][kx][kz]
//   inverse: z rows  [p][ky][kx][z'], y rows [p][z][kx][y'], x rows [p][z][y][x']
// where a primed index is Makhoul's order: v[m] holds x[2m] for the first half and
// x[2(N-1-m)+1] for the second.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace ardent::ard::cuda {

struct GroupShape {
    int nx, ny, nz;
    long long count;  // partitions
};

// Position in Makhoul's order of element n of an N-point sequence.
__device__ inline int makhoul_pos(int n, int N) {
    return (n & 1) ? N - 1 - (n >> 1) : (n >> 1);
}

__device__ inline void sincospi_t(float x, float* s, float* c) {
    sincospif(x, s, c);
}
__device__ inline void sincospi_t(double x, double* s, double* c) {
    sincospi(x, s, c);
}

// Forward twiddle of bin k (k <= N/2) of the real FFT V of a reordered row: REDFT10 bins k and
// N - k (the latter only when it is a different bin in [1, N)).
template <typename Real, typename Complex>
__device__ inline void dct2_pair(Complex v, int k, int N, Real& xk, Real& xnk) {
    Real s, c;
    sincospi_t(static_cast<Real>(k) / static_cast<Real>(2 * N), &s, &c);
    xk = 2 * (c * v.x + s * v.y);
    xnk = 2 * (s * v.x - c * v.y);
}

__device__ inline bool has_mirror(int k, int N) {
    return k > 0 && 2 * k != N;
}

// Inverse pre-twiddle: the half-spectrum bin k whose unnormalised C2R is REDFT01 in Makhoul's
// order, from DCT bins k and N - k (xnk = 0 for k = 0).
template <typename Real, typename Complex>
__device__ inline Complex dct3_bin(Real xk, Real xnk, int k, int N) {
    Real s, c;
    sincospi_t(static_cast<Real>(k) / static_cast<Real>(2 * N), &s, &c);
    Complex y;
    y.x = c * xk + s * xnk;
    y.y = s * xk - c * xnk;
    return y;
}

template <typename Real>
__global__ void reorder_x(GroupShape g, const Real* __restrict__ in, Real* __restrict__ out) {
    const long long n = g.count * g.nx * g.ny * g.nz;
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const int x = static_cast<int>(i % g.nx);
    out[i - x + makhoul_pos(x, g.nx)] = in[i];
}

// x twiddle; writes [p][z][kx][y'].
template <typename Real, typename Complex>
__global__ void forward_x(GroupShape g, const Complex* __restrict__ in, Real* __restrict__ out) {
    const int h = g.nx / 2 + 1;
    const long long n = g.count * g.nz * g.ny * h;
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const int k = static_cast<int>(t % h);
    const long long row = t / h;  // (p, z, y)
    const int y = static_cast<int>(row % g.ny);
    const long long pz = row / g.ny;
    Real xk, xnk;
    dct2_pair(in[t], k, g.nx, xk, xnk);
    const long long ys = makhoul_pos(y, g.ny);
    out[(pz * g.nx + k) * g.ny + ys] = xk;
    if (has_mirror(k, g.nx)) out[(pz * g.nx + (g.nx - k)) * g.ny + ys] = xnk;
}

// y twiddle; rows (p, z, kx); writes [p][ky][kx][z'].
template <typename Real, typename Complex>
__global__ void forward_y(GroupShape g, const Complex* __restrict__ in, Real* __restrict__ out) {
    const int h = g.ny / 2 + 1;
    const long long n = g.count * g.nz * g.nx * h;
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const int k = static_cast<int>(t % h);
    const long long row = t / h;
    const int kx = static_cast<int>(row % g.nx);
    const long long pz = row / g.nx;
    const int z = static_cast<int>(pz % g.nz);
    const long long p = pz / g.nz;
    Real xk, xnk;
    dct2_pair(in[t], k, g.ny, xk, xnk);
    const long long zs = makhoul_pos(z, g.nz);
    out[((p * g.ny + k) * g.nx + kx) * g.nz + zs] = xk;
    if (has_mirror(k, g.ny)) out[((p * g.ny + (g.ny - k)) * g.nx + kx) * g.nz + zs] = xnk;
}

// After the inverse z transform (rows [p][ky][kx][z']): un-reorders z and pre-twiddles y;
// writes the half spectra [p][z][kx][ky <= ny/2].
template <typename Real, typename Complex>
__global__ void inverse_z_to_y(GroupShape g, const Real* __restrict__ in,
                               Complex* __restrict__ out) {
    const int h = g.ny / 2 + 1;
    const long long n = g.count * g.nz * g.nx * h;
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const int k = static_cast<int>(t % h);
    const long long row = t / h;
    const int kx = static_cast<int>(row % g.nx);
    const long long pz = row / g.nx;
    const int z = static_cast<int>(pz % g.nz);
    const long long p = pz / g.nz;
    const int zs = makhoul_pos(z, g.nz);
    const Real xk = in[((p * g.ny + k) * g.nx + kx) * g.nz + zs];
    const Real xnk = k > 0 ? in[((p * g.ny + (g.ny - k)) * g.nx + kx) * g.nz + zs] : Real(0);
    out[t] = dct3_bin<Real, Complex>(xk, xnk, k, g.ny);
}

// After the inverse y transform (rows [p][z][kx][y']): un-reorders y and pre-twiddles x;
// writes [p][z][y][kx <= nx/2].
template <typename Real, typename Complex>
__global__ void inverse_y_to_x(GroupShape g, const Real* __restrict__ in,
                               Complex* __restrict__ out) {
    const int h = g.nx / 2 + 1;
    const long long n = g.count * g.nz * g.ny * h;
    const long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const int k = static_cast<int>(t % h);
    const long long row = t / h;
    const int y = static_cast<int>(row % g.ny);
    const long long pz = row / g.ny;
    const int ys = makhoul_pos(y, g.ny);
    const Real xk = in[(pz * g.nx + k) * g.ny + ys];
    const Real xnk = k > 0 ? in[(pz * g.nx + (g.nx - k)) * g.ny + ys] : Real(0);
    out[t] = dct3_bin<Real, Complex>(xk, xnk, k, g.nx);
}

// After the inverse x transform: un-reorders x into the field.
template <typename Real>
__global__ void inverse_x_out(GroupShape g, const Real* __restrict__ in, Real* __restrict__ out) {
    const long long n = g.count * g.nx * g.ny * g.nz;
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const int x = static_cast<int>(i % g.nx);
    out[i] = in[i - x + makhoul_pos(x, g.nx)];
}

// cuFFT stand-ins for 1-point axes (a partition one cell thick), where the transform is a copy.
template <typename Real, typename Complex>
__global__ void real_to_half(long long n, const Real* __restrict__ in, Complex* __restrict__ out) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = Complex{in[i], Real(0)};
}

template <typename Real, typename Complex>
__global__ void half_to_real(long long n, const Complex* __restrict__ in, Real* __restrict__ out) {
    const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = in[i].x;
}

}  // namespace ardent::ard::cuda
