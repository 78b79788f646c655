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
#include <vector>

#include "ardent/solvers/ard_physics.h"

namespace ardent::ard::cuda {

struct GroupShape {
    int nx, ny, nz;
    long long count;  // partitions
};

// A shape group as the DCT kernels see it: where its cells and coefficients start, the log2 of
// its sides (every side is a power of two, so indexing is shifts and masks), how many lines a
// block takes per axis and the first block of each axis's launch. One launch per pass covers
// every group, so the step's launch count does not grow with the number of shapes.
struct DctGroup {
    GroupShape shape;
    long long offset;  // first cell (air index)
    long long coef;    // first mode coefficient
    int log2n[3];
    int log2lines[3];  // lines per block, log2
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
inline constexpr int kLog2RootBase = 12;
inline constexpr int kRootBase = 1 << kLog2RootBase;
inline constexpr int kLog2MaxLine = kLog2RootBase - 2;
inline constexpr int kMaxLine = 1 << kLog2MaxLine;
inline constexpr int kDctThreads = 256;

// Points of one tile (lines x line length), log2: the shared memory a block uses, and at most 2
// butterflies per thread per stage (kItems), which keeps registers low enough for 4 or more
// resident blocks per SM.
template <typename Real>
constexpr int log2_tile_points() {
    return sizeof(Real) == 4 ? 11 : 10;
}
inline constexpr int kItems = 2;

inline int log2_of(long long v) {
    int r = 0;
    while ((1LL << r) < v)
        ++r;
    return r;
}

// Lines a block transforms at once for lines of 2^log2n points, log2; short lines are capped
// so that the padding of each line keeps the tile within 48 KB of shared memory.
template <typename Real>
inline int log2_tile_lines(int log2n) {
    const int most = log2_tile_points<Real>() - 2;
    return log2_tile_points<Real>() - log2n < most ? log2_tile_points<Real>() - log2n : most;
}

// Shared bytes for a tile of `lines` lines of n points: the complex work line (n/2 + 1 entries,
// the +1 keeps lines on different banks) and, with `bins`, the real spectrum line (n + 1) of the
// inverse and z kernels.
template <typename Real>
inline size_t tile_shared_bytes(int lines, int n, bool bins) {
    const size_t c = static_cast<size_t>(n / 2 + 1) * 2 * sizeof(Real);
    const size_t r = bins ? static_cast<size_t>(n + 1) * sizeof(Real) : 0;
    return static_cast<size_t>(lines) * (c + r);
}

// The DCT launches over a list of shape groups: per axis the blocks and the shared bytes of the
// forward kernel and of the inverse and z kernels.
struct DctPlan {
    unsigned blocks[3] = {0, 0, 0};
    size_t shared_forward[3] = {0, 0, 0};
    size_t shared[3] = {0, 0, 0};
    std::vector<int32_t> block_group[3];  // per axis: the group of each block
};

// Appends a group (its sides must be powers of two up to kMaxLine) to `groups` and `plan`.
template <typename Real>
inline void add_dct_group(const GroupShape& s, long long offset, long long coef,
                          std::vector<DctGroup>& groups, DctPlan& plan) {
    DctGroup g{};
    g.shape = s;
    g.offset = offset;
    g.coef = coef;
    const int n[3] = {s.nx, s.ny, s.nz};
    for (int a = 0; a < 3; ++a) {
        g.log2n[a] = log2_of(n[a]);
        g.log2lines[a] = log2_tile_lines<Real>(g.log2n[a]);
        g.first_block[a] = plan.blocks[a];
        const long long lines = s.count * s.nx * s.ny * s.nz / n[a];
        const long long per = 1LL << g.log2lines[a];
        const unsigned nb = static_cast<unsigned>((lines + per - 1) / per);
        plan.blocks[a] += nb;
        plan.block_group[a].insert(plan.block_group[a].end(), nb,
                                   static_cast<int32_t>(groups.size()));
        const size_t fb = tile_shared_bytes<Real>(static_cast<int>(per), n[a], false);
        const size_t ib = tile_shared_bytes<Real>(static_cast<int>(per), n[a], true);
        plan.shared_forward[a] = plan.shared_forward[a] > fb ? plan.shared_forward[a] : fb;
        plan.shared[a] = plan.shared[a] > ib ? plan.shared[a] : ib;
    }
    groups.push_back(g);
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
    int n, ln;        // points per line, log2
    long long count;  // lines in the group
    int ls;           // log2 of the stride between a line's points
    int axis, lx, ly, lxy, lcells;

    __device__ Lines(const DctGroup& g, int a)
        : n(1 << g.log2n[a]),
          ln(g.log2n[a]),
          count(g.shape.count << (g.log2n[0] + g.log2n[1] + g.log2n[2] - g.log2n[a])),
          ls(a == 0   ? 0
             : a == 1 ? g.log2n[0]
                      : g.log2n[0] + g.log2n[1]),
          axis(a),
          lx(g.log2n[0]),
          ly(g.log2n[1]),
          lxy(g.log2n[0] + g.log2n[1]),
          lcells(g.log2n[0] + g.log2n[1] + g.log2n[2]) {}

    __device__ long long base(long long l) const {
        if (axis == 0) return l << lx;
        const long long x = l & ((1LL << lx) - 1), r = l >> lx;
        if (axis == 1) return (r << lxy) + x;                                // r = (p, z)
        return ((r >> ly) << lcells) + ((r & ((1LL << ly) - 1)) << lx) + x;  // r = (p, y)
    }
    __device__ long long at(long long l, int k) const {
        return base(l) + (static_cast<long long>(k) << ls);
    }
};

// The group of this block (from the launch's block-to-group table) and the tile's lines.
struct Tile {
    Lines ls;
    long long first;  // first line
    int lines, ll;    // lines in the tile, log2
    long long offset, coef;
};

__device__ inline Tile find_tile(const DctGroup* __restrict__ groups,
                                 const int32_t* __restrict__ block_group, int axis) {
    const DctGroup& g = groups[block_group[blockIdx.x]];
    const long long block = blockIdx.x;
    const int ll = g.log2lines[axis];
    return {Lines(g, axis), (block - g.first_block[axis]) << ll, 1 << ll, ll, g.offset, g.coef};
}

// Elements of a full tile per thread; loads are issued all at once (unrolled) so that their
// latencies overlap.
template <typename Real>
constexpr int tile_elements_per_thread() {
    return (1 << log2_tile_points<Real>()) / kDctThreads;
}

// Element e of a tile: its line and its position along the line. On the x axis consecutive
// threads walk along a line; on y and z across lines (consecutive x).
__device__ inline void tile_element(const Tile& t, int e, int& i, int& k) {
    if (t.ls.axis == 0) {
        i = e >> t.ls.ln;
        k = e & (t.ls.n - 1);
    } else {
        i = e & (t.lines - 1);
        k = e >> t.ll;
    }
}

// Position in Makhoul's order of element n of an N-point sequence.
__device__ inline int makhoul_pos(int n, int N) {
    return (n & 1) ? N - 1 - (n >> 1) : (n >> 1);
}

// One in-place Stockham stage of radix R = 2^LR over every line of the tile (lines of M = 2^lm
// points, 2^ll lines): all reads, a barrier, all writes. Ns = 2^lns is the length of the
// sub-transforms already done.
template <typename Real, int LR, bool Inverse>
__device__ void stockham_stage(typename Cplx<Real>::type* buf, int cs, int lm, int ll, int lns,
                               const typename Cplx<Real>::type* __restrict__ roots) {
    using C = typename Cplx<Real>::type;
    constexpr int R = 1 << LR;
    const int lper = lm - LR, per = 1 << lper, items = 1 << (ll + lper);
    const int Ns = 1 << lns, lstep = kLog2RootBase - lns - LR;
    C v[kItems][R];
#pragma unroll
    for (int it = 0; it < kItems; ++it) {
        const int w = static_cast<int>(threadIdx.x) + it * kDctThreads;
        if (w >= items) break;
        const int i = w >> lper, j = w & (per - 1);
        const C* line = buf + i * cs;
        const int jm = j & (Ns - 1);
        // One twiddle load per butterfly; its powers come from multiplications, which relieves
        // the L1 pipe the FFT is bound by.
        C tw = roots[jm << lstep];
        if (Inverse) tw.y = -tw.y;
        C t = tw;
#pragma unroll
        for (int r = 0; r < R; ++r) {
            C x = line[j + (r << lper)];
            if (r > 0) {
                x = cmul(x, t);
                t = cmul(t, tw);
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
        const int i = w >> lper, j = w & (per - 1);
        C* line = buf + i * cs;
        const int d = ((j >> lns) << (lns + LR)) + (j & (Ns - 1));
#pragma unroll
        for (int r = 0; r < R; ++r)
            line[d + (r << lns)] = v[it][r];
    }
    __syncthreads();
}

// Unnormalised complex FFT of length 2^lm of every line of the tile.
template <typename Real, bool Inverse>
__device__ void tile_fft(typename Cplx<Real>::type* buf, int cs, int lm, int ll,
                         const typename Cplx<Real>::type* __restrict__ roots) {
    int lns = 0;
    for (; lns + 2 <= lm; lns += 2)
        stockham_stage<Real, 2, Inverse>(buf, cs, lm, ll, lns, roots);
    if (lns < lm) stockham_stage<Real, 1, Inverse>(buf, cs, lm, ll, lns, roots);
}

// After the forward FFT of the packed line: REDFT10 bins k and N - k for k in [0, N/2], handed
// to emit(line, bin, value). Threads walk the bins of a line on the x axis and across lines on
// y and z, as tile_element; the thread of k = 0 also gives bin N/2.
template <typename Real, typename Emit>
__device__ void forward_bins(const typename Cplx<Real>::type* buf, int cs, const Tile& t,
                             const typename Cplx<Real>::type* __restrict__ roots, Emit emit) {
    using C = typename Cplx<Real>::type;
    const int ln = t.ls.ln, N = t.ls.n, lm = ln - 1, M = N / 2;
    const bool along = t.ls.axis == 0;
    for (int e = static_cast<int>(threadIdx.x); e < t.lines * M; e += kDctThreads) {
        const int i = along ? e >> lm : e & (t.lines - 1);
        const int k0 = along ? e & (M - 1) : e >> t.ll;
        const C* line = buf + i * cs;
        for (int k = k0; k <= M; k += M) {
            const C z = line[k & (M - 1)], zc = conj_of(line[(M - k) & (M - 1)]);
            // Even and odd halves of the real FFT, then V_k = E + e^{-2 pi i k / N} O.
            const C ev = {(z.x + zc.x) / 2, (z.y + zc.y) / 2};
            const C od = {(z.y - zc.y) / 2, -(z.x - zc.x) / 2};
            const C wo = cmul(roots[k << (kLog2RootBase - ln)], od);
            const C V = {ev.x + wo.x, ev.y + wo.y};
            const C tw = roots[k << (kLog2MaxLine - ln)];  // e^{-i pi k / (2N)} = (c, -s)
            const Real c = tw.x, s = -tw.y;
            emit(i, k, 2 * (c * V.x + s * V.y));
            if (k > 0 && k != M) emit(i, N - k, 2 * (s * V.x - c * V.y));
            if (k > 0) break;
        }
    }
}

// Before the inverse FFT: the packed half-length spectrum whose inverse FFT is the REDFT01 of
// the bins bin(line, k), in Makhoul's order.
template <typename Real, typename Bin>
__device__ void inverse_pack(typename Cplx<Real>::type* buf, int cs, const Tile& t,
                             const typename Cplx<Real>::type* __restrict__ roots, Bin bin) {
    using C = typename Cplx<Real>::type;
    const int ln = t.ls.ln, N = t.ls.n, lm = ln - 1, M = N / 2;
    // Y_k of the length-N real inverse FFT, from bins k and N - k.
    auto half = [&](int i, int k) -> C {
        const Real xk = bin(i, k), xnk = k > 0 ? bin(i, N - k) : Real(0);
        const C tw = roots[k << (kLog2MaxLine - ln)];
        const Real c = tw.x, s = -tw.y;
        return {c * xk + s * xnk, s * xk - c * xnk};
    };
    for (int e = static_cast<int>(threadIdx.x); e < t.lines * M; e += kDctThreads) {
        const int i = e >> lm, k = e & (M - 1);
        const C y = half(i, k), ym = conj_of(half(i, M - k));
        const C a = {y.x + ym.x, y.y + ym.y};
        C w = roots[k << (kLog2RootBase - ln)];
        w.y = -w.y;  // e^{+2 pi i k / N}
        const C b = cmul(C{y.x - ym.x, y.y - ym.y}, w);
        buf[i * cs + k] = {a.x - b.y, a.y + b.x};
    }
}

// Reads every element of the tile from `in` (zero past the group's last line), all loads in
// flight together, then hands each to put(line, position, value).
template <typename Real, typename Put>
__device__ void load_tile(const Tile& t, const Real* in, Put put) {
    constexpr int kPer = tile_elements_per_thread<Real>();
    const int total = t.lines * t.ls.n;
    Real v[kPer];
#pragma unroll
    for (int it = 0; it < kPer; ++it) {
        const int e = static_cast<int>(threadIdx.x) + it * kDctThreads;
        v[it] = Real(0);
        if (e < total) {
            int i, k;
            tile_element(t, e, i, k);
            const long long l = t.first + i;
            if (l < t.ls.count) v[it] = in[t.ls.at(l, k)];
        }
    }
#pragma unroll
    for (int it = 0; it < kPer; ++it) {
        const int e = static_cast<int>(threadIdx.x) + it * kDctThreads;
        if (e < total) {
            int i, k;
            tile_element(t, e, i, k);
            put(i, k, v[it]);
        }
    }
}

// Loads a tile of lines into the complex work lines in Makhoul's order (v packed as reals).
template <typename Real>
__device__ void load_packed(const Tile& t, const Real* in, Real* work, int cs) {
    const int N = t.ls.n;
    load_tile(t, in, [&](int i, int k, Real v) { work[2 * i * cs + makhoul_pos(k, N)] = v; });
}

// Stores the inverse FFT's packed output, undoing Makhoul's order.
template <typename Real>
__device__ void store_packed(const Tile& t, const Real* work, int cs, Real* out) {
    const int N = t.ls.n;
    for (int e = static_cast<int>(threadIdx.x); e < t.lines * N; e += kDctThreads) {
        int i, k;
        tile_element(t, e, i, k);
        const long long l = t.first + i;
        if (l < t.ls.count) out[t.ls.at(l, k)] = work[2 * i * cs + makhoul_pos(k, N)];
    }
}

// Loads a tile of lines as they are (the bins of the inverse transforms).
template <typename Real>
__device__ void load_bins(const Tile& t, const Real* in, Real* bins, int rs) {
    load_tile(t, in, [&](int i, int k, Real v) { bins[i * rs + k] = v; });
}

// Forward DCT (REDFT10) along `axis` of every line of every group, in place. Lines of one point
// are the factor 2 alone.
template <typename Real>
__global__ void __launch_bounds__(kDctThreads, 4)
    dct_forward(const DctGroup* groups, const int32_t* block_group, int axis,
                const typename Cplx<Real>::type* __restrict__ roots, Real* field) {
    using C = typename Cplx<Real>::type;
    extern __shared__ unsigned char smem[];
    const Tile t = find_tile(groups, block_group, axis);
    Real* data = field + t.offset;
    const int cs = t.ls.n / 2 + 1;
    if (t.ls.n == 1) {
        for (int i = static_cast<int>(threadIdx.x); i < t.lines; i += kDctThreads)
            if (t.first + i < t.ls.count) data[t.ls.base(t.first + i)] *= 2;
        return;
    }
    C* buf = reinterpret_cast<C*>(smem);
    load_packed(t, data, reinterpret_cast<Real*>(buf), cs);
    __syncthreads();
    tile_fft<Real, false>(buf, cs, t.ls.ln - 1, t.ll, roots);
    forward_bins<Real>(buf, cs, t, roots, [&](int i, int k, Real x) {
        const long long l = t.first + i;
        if (l < t.ls.count) data[t.ls.at(l, k)] = x;
    });
}

// Inverse DCT (REDFT01, unnormalised) along `axis`, from `in` to `out` (which may be `in`).
template <typename Real>
__global__ void __launch_bounds__(kDctThreads, 4)
    dct_inverse(const DctGroup* groups, const int32_t* block_group, int axis,
                const typename Cplx<Real>::type* __restrict__ roots, const Real* in_field,
                Real* out_field) {
    using C = typename Cplx<Real>::type;
    extern __shared__ unsigned char smem[];
    const Tile t = find_tile(groups, block_group, axis);
    const Real* in = in_field + t.offset;
    Real* out = out_field + t.offset;
    const int cs = t.ls.n / 2 + 1, rs = t.ls.n + 1;
    if (t.ls.n == 1) {
        for (int i = static_cast<int>(threadIdx.x); i < t.lines; i += kDctThreads)
            if (t.first + i < t.ls.count) out[t.ls.base(t.first + i)] = in[t.ls.base(t.first + i)];
        return;
    }
    C* buf = reinterpret_cast<C*>(smem);
    Real* bins = reinterpret_cast<Real*>(buf + t.lines * cs);
    load_bins(t, in, bins, rs);
    __syncthreads();
    inverse_pack<Real>(buf, cs, t, roots, [&](int i, int k) { return bins[i * rs + k]; });
    __syncthreads();
    tile_fft<Real, true>(buf, cs, t.ls.ln - 1, t.ll, roots);
    store_packed(t, reinterpret_cast<const Real*>(buf), cs, out);
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
__global__ void __launch_bounds__(kDctThreads, 4)
    dct_z_modes(const DctGroup* groups, const int32_t* block_group,
                const typename Cplx<Real>::type* __restrict__ roots, Real* field,
                ModeArrays<Real> modes, bool init) {
    using C = typename Cplx<Real>::type;
    extern __shared__ unsigned char smem[];
    const Tile t = find_tile(groups, block_group, 2);
    Real* data = field + t.offset;
    Real* cur = modes.cur + t.offset;
    Real* old = modes.old + t.offset;
    const Real* __restrict__ a = modes.a + t.coef;
    const Real* __restrict__ b = modes.b + t.coef;
    const Real* __restrict__ phi = modes.phi + t.coef;
    const int N = t.ls.n, cs = N / 2 + 1, rs = N + 1;
    C* buf = reinterpret_cast<C*>(smem);
    Real* bins = reinterpret_cast<Real*>(buf + t.lines * cs);
    if (N == 1) {
        for (int i = static_cast<int>(threadIdx.x); i < t.lines; i += kDctThreads)
            if (t.first + i < t.ls.count) bins[i * rs] = 2 * data[t.ls.base(t.first + i)];
    } else {
        load_packed(t, data, reinterpret_cast<Real*>(buf), cs);
        __syncthreads();
        tile_fft<Real, false>(buf, cs, t.ls.ln - 1, t.ll, roots);
        forward_bins<Real>(buf, cs, t, roots, [&](int i, int k, Real x) { bins[i * rs + k] = x; });
    }
    __syncthreads();
    // All of a thread's mode and coefficient loads are issued before any update.
    const long long cell_mask = (1LL << t.ls.lcells) - 1;
    constexpr int kPer = tile_elements_per_thread<Real>();
    const int total = t.lines * N;
    long long m[kPer], c[kPer];
    Real pc[kPer], po[kPer], ca[kPer], cb[kPer], cp[kPer];
#pragma unroll
    for (int it = 0; it < kPer; ++it) {
        const int e = static_cast<int>(threadIdx.x) + it * kDctThreads;
        m[it] = -1;
        if (e >= total) continue;
        int i, k;
        tile_element(t, e, i, k);
        const long long l = t.first + i;
        if (l >= t.ls.count) continue;
        m[it] = t.ls.at(l, k);
        c[it] = m[it] & cell_mask;
        cp[it] = phi[c[it]];
        if (!init) {
            pc[it] = cur[m[it]];
            po[it] = old[m[it]];
            ca[it] = a[c[it]];
            cb[it] = b[c[it]];
        }
    }
#pragma unroll
    for (int it = 0; it < kPer; ++it) {
        if (m[it] < 0) continue;
        const int e = static_cast<int>(threadIdx.x) + it * kDctThreads;
        int i, k;
        tile_element(t, e, i, k);
        const Real f = bins[i * rs + k];
        Real pn;
        if (init) {
            // The DCT round trip's 1/(8 cells), which b carries for the update.
            pn = f * static_cast<Real>(1.0 / (8.0 * static_cast<double>(cell_mask + 1)));
            cur[m[it]] = pn;
        } else {
            pn = mode_update(ca[it], cb[it], pc[it], po[it], f);
        }
        old[m[it]] = pn;
        bins[i * rs + k] = cp[it] * pn;
    }
    __syncthreads();
    if (N == 1) {
        for (int i = static_cast<int>(threadIdx.x); i < t.lines; i += kDctThreads)
            if (t.first + i < t.ls.count) data[t.ls.base(t.first + i)] = bins[i * rs];
        return;
    }
    inverse_pack<Real>(buf, cs, t, roots, [&](int i, int k) { return bins[i * rs + k]; });
    __syncthreads();
    tile_fft<Real, true>(buf, cs, t.ls.ln - 1, t.ll, roots);
    store_packed(t, reinterpret_cast<const Real*>(buf), cs, data);
}

}  // namespace ardent::ard::cuda
