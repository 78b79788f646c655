// The batched 3-D DCT of the CUDA ARD backend (spec section 5), one kernel per axis and
// direction. A block loads a tile of whole lines along the axis into shared memory (consecutive
// lines are consecutive x, so loads and stores are coalesced on every axis and no transposes are
// needed), transforms them there and writes them back in place. Each line uses Makhoul's method:
// an even/odd reordering, a real FFT done as a half-length complex Stockham FFT (radix 4, one
// radix-2 stage when needed) and a twiddle. The z kernel also advances the modes between its
// forward and inverse transforms, so the spectrum never travels through global memory.
// Scaling matches FFTW's REDFT10 (forward, factor 2N per axis) and REDFT01 (inverse), so the CPU
// backend's mode coefficients apply unchanged. Layout of a shape group (P partitions of
// nx x ny x nz cells, fastest index last): field, force and modes [p][z][y][x] (modes indexed
// [p][kz][ky][kx]); mode coefficients [kz][ky][kx], shared by the group's partitions.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ardent/solvers/ard_physics.h"

namespace ardent::ard::cuda {

struct GroupShape {
    int nx, ny, nz;
    long long count;  // partitions
};

// A shape group as the DCT kernels see it: where its cells and coefficients start, how many
// lines a block takes per axis and the first block of each axis's launch. One launch per pass
// covers every group, so the step's launch count does not grow with the number of shapes.
struct DctGroup {
    GroupShape shape;
    long long offset;  // first cell (air index)
    long long coef;    // first mode coefficient
    int lines[3];
    long long first_block[3];
};

template <typename Real>
struct Cplx;
template <>
struct Cplx<float> {
    using type = float2;
};
template <>
struct Cplx<double> {
    using type = double2;
};

// Twiddles come from one table of e^{-2 pi i j / kRootBase}; it serves every line length up to
// kMaxLine (the Makhoul twiddle needs the 4N-th roots).
inline constexpr int kRootBase = 4096;
inline constexpr int kMaxLine = kRootBase / 4;
inline constexpr int kDctThreads = 256;

// Points of one tile (lines x line length): the shared memory a block uses, and at most 4
// butterflies per thread per stage.
template <typename Real>
constexpr int tile_points() {
    return sizeof(Real) == 4 ? 4096 : 2048;
}

// Lines a block transforms at once for lines of n points; short lines are capped so that the
// padding of each line keeps the tile within 48 KB of shared memory.
template <typename Real>
inline int tile_lines(int n) {
    const int most = tile_points<Real>() / 4;
    return tile_points<Real>() / n < most ? tile_points<Real>() / n : most;
}

// Shared bytes for a tile of `lines` lines of n points: the complex work line (n/2 + 1 entries,
// the +1 keeps lines on different banks) and the real spectrum line (n + 1) of the inverse and
// z kernels.
template <typename Real>
inline size_t tile_shared_bytes(int lines, int n) {
    const size_t c = static_cast<size_t>(n / 2 + 1) * 2 * sizeof(Real);
    const size_t r = static_cast<size_t>(n + 1) * sizeof(Real);
    return static_cast<size_t>(lines) * (c + r);
}

template <typename C>
__device__ inline C cmul(C a, C b) {
    return {a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
template <typename C>
__device__ inline C conj_of(C a) {
    return {a.x, -a.y};
}

// The lines along `axis` of a group, in an order where consecutive lines are consecutive x
// (or, for the x axis, consecutive rows).
struct Lines {
    int n;            // points per line
    long long count;  // lines in the group
    long long stride;
    int axis, nx, ny;
    long long cells;  // per partition

    __host__ __device__ Lines(const GroupShape& g, int a)
        : n(a == 0   ? g.nx
            : a == 1 ? g.ny
                     : g.nz),
          count(g.count * g.nx * g.ny * g.nz / n),
          stride(a == 0   ? 1
                 : a == 1 ? g.nx
                          : static_cast<long long>(g.nx) * g.ny),
          axis(a),
          nx(g.nx),
          ny(g.ny),
          cells(static_cast<long long>(g.nx) * g.ny * g.nz) {}

    __device__ long long base(long long l) const {
        if (axis == 0) return l * nx;
        const long long x = l % nx, r = l / nx;
        if (axis == 1) return r * ny * nx + x;        // r = (p, z)
        return (r / ny) * cells + (r % ny) * nx + x;  // r = (p, y)
    }
};

// The group of this block (binary search over the launch's block ranges) and the tile's lines.
struct Tile {
    Lines ls;
    long long first;  // first line
    int lines;
    long long offset, coef;
};

__device__ inline Tile find_tile(const DctGroup* __restrict__ groups, int count, int axis) {
    const long long block = blockIdx.x;
    int lo = 0, hi = count - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (groups[mid].first_block[axis] <= block)
            lo = mid;
        else
            hi = mid - 1;
    }
    const DctGroup& g = groups[lo];
    return {Lines(g.shape, axis), (block - g.first_block[axis]) * g.lines[axis], g.lines[axis],
            g.offset, g.coef};
}

// Element e of a tile of `lines` lines: its line and its position along the line. On the x
// axis consecutive threads walk along a line; on y and z across lines (consecutive x).
__device__ inline void tile_element(const Lines& ls, int lines, int e, int& i, int& k) {
    if (ls.axis == 0) {
        i = e / ls.n;
        k = e % ls.n;
    } else {
        i = e % lines;
        k = e / lines;
    }
}

// Position in Makhoul's order of element n of an N-point sequence.
__device__ inline int makhoul_pos(int n, int N) {
    return (n & 1) ? N - 1 - (n >> 1) : (n >> 1);
}

// One in-place Stockham stage of radix R over every line of the tile: all reads, a barrier, all
// writes. Ns is the length of the sub-transforms already done.
template <typename Real, int R, bool Inverse>
__device__ void stockham_stage(typename Cplx<Real>::type* buf, int cs, int M, int lines, int Ns,
                               const typename Cplx<Real>::type* __restrict__ roots) {
    using C = typename Cplx<Real>::type;
    constexpr int kItems = 4;
    const int per = M / R, items = lines * per;
    const int step = kRootBase / (Ns * R);
    C v[kItems][R];
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const int w = static_cast<int>(threadIdx.x) + it * kDctThreads;
        if (w >= items) break;
        const int i = w / per, j = w % per;
        const C* line = buf + i * cs;
        const int jm = j % Ns;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            C x = line[j + r * per];
            if (r > 0) {
                C t = roots[r * jm * step];
                if (Inverse) t.y = -t.y;
                x = cmul(x, t);
            }
            v[it][r] = x;
        }
        if (R == 2) {
            const C a = v[it][0], b = v[it][1];
            v[it][0] = {a.x + b.x, a.y + b.y};
            v[it][1] = {a.x - b.x, a.y - b.y};
        } else {
            // 4-point DFT; -i (forward) or +i (inverse) times (v1 - v3).
            const C a = v[it][0], b = v[it][1], c = v[it][2], d = v[it][3];
            const C s0 = {a.x + c.x, a.y + c.y}, s1 = {a.x - c.x, a.y - c.y};
            const C s2 = {b.x + d.x, b.y + d.y}, s3 = {b.x - d.x, b.y - d.y};
            const C r3 = Inverse ? C{-s3.y, s3.x} : C{s3.y, -s3.x};
            v[it][0] = {s0.x + s2.x, s0.y + s2.y};
            v[it][1] = {s1.x + r3.x, s1.y + r3.y};
            v[it][2] = {s0.x - s2.x, s0.y - s2.y};
            v[it][3] = {s1.x - r3.x, s1.y - r3.y};
        }
    }
    __syncthreads();
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const int w = static_cast<int>(threadIdx.x) + it * kDctThreads;
        if (w >= items) break;
        const int i = w / per, j = w % per;
        C* line = buf + i * cs;
        const int jm = j % Ns;
        const int d = (j / Ns) * Ns * R + jm;
#pragma unroll
        for (int r = 0; r < R; ++r)
            line[d + r * Ns] = v[it][r];
    }
    __syncthreads();
}

// Unnormalised complex FFT of length M (a power of two) of every line of the tile.
template <typename Real, bool Inverse>
__device__ void tile_fft(typename Cplx<Real>::type* buf, int cs, int M, int lines,
                         const typename Cplx<Real>::type* __restrict__ roots) {
    int Ns = 1;
    for (; Ns * 4 <= M; Ns *= 4)
        stockham_stage<Real, 4, Inverse>(buf, cs, M, lines, Ns, roots);
    if (Ns < M) stockham_stage<Real, 2, Inverse>(buf, cs, M, lines, Ns, roots);
}

// After the forward FFT of the packed line: REDFT10 bins k and N - k for k in [0, N/2], handed
// to emit(line, bin, value).
// Threads walk the bins of a line on the x axis and across lines on y and z, as tile_element.
template <typename Real, typename Emit>
__device__ void forward_bins(const typename Cplx<Real>::type* buf, int cs, int axis, int N,
                             int lines, const typename Cplx<Real>::type* __restrict__ roots,
                             Emit emit) {
    using C = typename Cplx<Real>::type;
    const int M = N / 2, h = M + 1;
    for (int e = static_cast<int>(threadIdx.x); e < lines * h; e += kDctThreads) {
        const int i = axis == 0 ? e / h : e % lines, k = axis == 0 ? e % h : e / lines;
        const C* line = buf + i * cs;
        const C z = line[k % M], zc = conj_of(line[(M - k) % M]);
        // Even and odd halves of the real FFT, then V_k = E + e^{-2 pi i k / N} O.
        const C ev = {(z.x + zc.x) / 2, (z.y + zc.y) / 2};
        const C od = {(z.y - zc.y) / 2, -(z.x - zc.x) / 2};
        const C wo = cmul(roots[k * (kRootBase / N)], od);
        const C V = {ev.x + wo.x, ev.y + wo.y};
        const C t = roots[k * (kMaxLine / N)];  // e^{-i pi k / (2N)} = (c, -s)
        const Real c = t.x, s = -t.y;
        emit(i, k, 2 * (c * V.x + s * V.y));
        if (k > 0 && 2 * k != N) emit(i, N - k, 2 * (s * V.x - c * V.y));
    }
}

// Before the inverse FFT: the packed half-length spectrum whose inverse FFT is the REDFT01 of
// the bins bin(line, k), in Makhoul's order.
template <typename Real, typename Bin>
__device__ void inverse_pack(typename Cplx<Real>::type* buf, int cs, int N, int lines,
                             const typename Cplx<Real>::type* __restrict__ roots, Bin bin) {
    using C = typename Cplx<Real>::type;
    const int M = N / 2;
    // Y_k of the length-N real inverse FFT, from bins k and N - k.
    auto half = [&](int i, int k) -> C {
        const Real xk = bin(i, k), xnk = k > 0 ? bin(i, N - k) : Real(0);
        const C t = roots[k * (kMaxLine / N)];
        const Real c = t.x, s = -t.y;
        return {c * xk + s * xnk, s * xk - c * xnk};
    };
    for (int e = static_cast<int>(threadIdx.x); e < lines * M; e += kDctThreads) {
        const int i = e / M, k = e % M;
        const C y = half(i, k), ym = conj_of(half(i, M - k));
        const C a = {y.x + ym.x, y.y + ym.y};
        C w = roots[k * (kRootBase / N)];
        w.y = -w.y;  // e^{+2 pi i k / N}
        const C b = cmul(C{y.x - ym.x, y.y - ym.y}, w);
        buf[i * cs + k] = {a.x - b.y, a.y + b.x};
    }
}

// Loads a tile of lines into the complex work lines in Makhoul's order (v packed as reals).
template <typename Real>
__device__ void load_packed(const Lines& ls, long long first, int lines, const Real* in, Real* work,
                            int cs) {
    const int N = ls.n;
    for (int e = static_cast<int>(threadIdx.x); e < lines * N; e += kDctThreads) {
        int i, k;
        tile_element(ls, lines, e, i, k);
        const long long l = first + i;
        Real v = 0;
        if (l < ls.count) v = in[ls.base(l) + k * ls.stride];
        work[2 * i * cs + makhoul_pos(k, N)] = v;
    }
}

// Stores the inverse FFT's packed output, undoing Makhoul's order.
template <typename Real>
__device__ void store_packed(const Lines& ls, long long first, int lines, const Real* work, int cs,
                             Real* out) {
    const int N = ls.n;
    for (int e = static_cast<int>(threadIdx.x); e < lines * N; e += kDctThreads) {
        int i, k;
        tile_element(ls, lines, e, i, k);
        const long long l = first + i;
        if (l < ls.count) out[ls.base(l) + k * ls.stride] = work[2 * i * cs + makhoul_pos(k, N)];
    }
}

// Forward DCT (REDFT10) along `axis` of every line of every group, in place. Lines of one point
// are the factor 2 alone.
template <typename Real>
__global__ void __launch_bounds__(kDctThreads)
    dct_forward(const DctGroup* groups, int count, int axis,
                const typename Cplx<Real>::type* __restrict__ roots, Real* field) {
    using C = typename Cplx<Real>::type;
    extern __shared__ unsigned char smem[];
    const Tile t = find_tile(groups, count, axis);
    const Lines& ls = t.ls;
    Real* data = field + t.offset;
    const int N = ls.n, M = N / 2, cs = M + 1, lines = t.lines;
    const long long first = t.first;
    if (N == 1) {
        for (int i = static_cast<int>(threadIdx.x); i < lines; i += kDctThreads)
            if (first + i < ls.count) data[ls.base(first + i)] *= 2;
        return;
    }
    C* buf = reinterpret_cast<C*>(smem);
    load_packed(ls, first, lines, data, reinterpret_cast<Real*>(buf), cs);
    __syncthreads();
    tile_fft<Real, false>(buf, cs, M, lines, roots);
    forward_bins<Real>(buf, cs, axis, N, lines, roots, [&](int i, int k, Real x) {
        const long long l = first + i;
        if (l < ls.count) data[ls.base(l) + k * ls.stride] = x;
    });
}

// Inverse DCT (REDFT01, unnormalised) along `axis`, from `in` to `out` (which may be `in`).
template <typename Real>
__global__ void __launch_bounds__(kDctThreads)
    dct_inverse(const DctGroup* groups, int count, int axis,
                const typename Cplx<Real>::type* __restrict__ roots, const Real* in_field,
                Real* out_field) {
    using C = typename Cplx<Real>::type;
    extern __shared__ unsigned char smem[];
    const Tile t = find_tile(groups, count, axis);
    const Lines& ls = t.ls;
    const Real* in = in_field + t.offset;
    Real* out = out_field + t.offset;
    const int N = ls.n, M = N / 2, cs = M + 1, rs = N + 1, lines = t.lines;
    const long long first = t.first;
    if (N == 1) {
        for (int i = static_cast<int>(threadIdx.x); i < lines; i += kDctThreads)
            if (first + i < ls.count) out[ls.base(first + i)] = in[ls.base(first + i)];
        return;
    }
    C* buf = reinterpret_cast<C*>(smem);
    Real* bins = reinterpret_cast<Real*>(buf + lines * cs);
    for (int e = static_cast<int>(threadIdx.x); e < lines * N; e += kDctThreads) {
        int i, k;
        tile_element(ls, lines, e, i, k);
        const long long l = first + i;
        bins[i * rs + k] = l < ls.count ? in[ls.base(l) + k * ls.stride] : Real(0);
    }
    __syncthreads();
    inverse_pack<Real>(buf, cs, N, lines, roots, [&](int i, int k) { return bins[i * rs + k]; });
    __syncthreads();
    tile_fft<Real, true>(buf, cs, M, lines, roots);
    store_packed(ls, first, lines, reinterpret_cast<const Real*>(buf), cs, out);
}

// Mode arrays and coefficients of the z kernel.
template <typename Real>
struct ModeArrays {
    Real* cur;
    Real* old;  // receives the new level
    const Real* a;
    const Real* b;
    const Real* phi;
};

// The z axis: forward DCT of the forcing, the mode update (p_new = a p - p_old + b f, into the
// old level) or, for `init`, the modes set to the DCT of the initial field, then the inverse DCT
// of the filtered modes phi p_new, all in place in `field`.
template <typename Real>
__global__ void __launch_bounds__(kDctThreads)
    dct_z_modes(const DctGroup* groups, int count,
                const typename Cplx<Real>::type* __restrict__ roots, Real* field,
                ModeArrays<Real> modes, bool init) {
    using C = typename Cplx<Real>::type;
    extern __shared__ unsigned char smem[];
    const Tile t = find_tile(groups, count, 2);
    const Lines& ls = t.ls;
    Real* data = field + t.offset;
    Real* cur = modes.cur + t.offset;
    Real* old = modes.old + t.offset;
    const Real* __restrict__ a = modes.a + t.coef;
    const Real* __restrict__ b = modes.b + t.coef;
    const Real* __restrict__ phi = modes.phi + t.coef;
    const int N = ls.n, M = N / 2, cs = M + 1, rs = N + 1, lines = t.lines;
    const long long first = t.first;
    C* buf = reinterpret_cast<C*>(smem);
    Real* bins = reinterpret_cast<Real*>(buf + lines * cs);
    if (N == 1) {
        for (int i = static_cast<int>(threadIdx.x); i < lines; i += kDctThreads)
            if (first + i < ls.count) bins[i * rs] = 2 * data[ls.base(first + i)];
    } else {
        load_packed(ls, first, lines, data, reinterpret_cast<Real*>(buf), cs);
        __syncthreads();
        tile_fft<Real, false>(buf, cs, M, lines, roots);
        forward_bins<Real>(buf, cs, 2, N, lines, roots,
                           [&](int i, int k, Real x) { bins[i * rs + k] = x; });
    }
    __syncthreads();
    for (int e = static_cast<int>(threadIdx.x); e < lines * N; e += kDctThreads) {
        int i, k;
        tile_element(ls, lines, e, i, k);
        const long long l = first + i;
        if (l >= ls.count) continue;
        const long long m = ls.base(l) + k * ls.stride;
        const long long c = m % ls.cells;
        const Real f = bins[i * rs + k];
        Real pn;
        if (init) {
            // The DCT round trip's 1/(8 cells), which b carries for the update.
            pn = f * static_cast<Real>(1.0 / (8.0 * static_cast<double>(ls.cells)));
            cur[m] = pn;
        } else {
            pn = mode_update(a[c], b[c], cur[m], old[m], f);
        }
        old[m] = pn;
        bins[i * rs + k] = phi[c] * pn;
    }
    __syncthreads();
    if (N == 1) {
        for (int i = static_cast<int>(threadIdx.x); i < lines; i += kDctThreads)
            if (first + i < ls.count) data[ls.base(first + i)] = bins[i * rs];
        return;
    }
    inverse_pack<Real>(buf, cs, N, lines, roots, [&](int i, int k) { return bins[i * rs + k]; });
    __syncthreads();
    tile_fft<Real, true>(buf, cs, M, lines, roots);
    store_packed(ls, first, lines, reinterpret_cast<const Real*>(buf), cs, data);
}

}  // namespace ardent::ard::cuda
