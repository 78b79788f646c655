// One tile of the CUDA ARD backend's batched DCTs (spec section 5): the lines one block
// transforms at once, written once for the device and for a host emulation that the tests run
// without a GPU. Each line uses Makhoul's method: an even/odd reordering, a half-length complex
// FFT of M points and a twiddle. The FFT is two register passes with the line length known at
// compile time: T threads per line each do an R-point DFT whose twiddles are immediates, the
// lines meet in shared memory once, and each thread then does R/T DFTs of T points (M = R x T).
// That replaces a shared-memory round trip and two barriers per radix-4 stage, which bounded the
// former kernels. Loads and stores are coalesced on every axis: on x a tile is one contiguous
// run of lines; on y and z consecutive lines are consecutive x. Scaling matches FFTW's REDFT10
// (forward, factor 2N per axis) and REDFT01 (inverse), so the CPU backend's mode coefficients
// apply unchanged.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "ardent/solvers/ard_physics.h"

namespace ardent::ard::cuda {

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

// The longest line a DCT pass takes.
inline constexpr int kLog2MaxLine = 10;
inline constexpr int kMaxLine = 1 << kLog2MaxLine;

// The per-line twiddles, one table for every line length: for lines of N = 2^LN points (LN >= 1)
// e^{-2 pi i k / N} for k in [0, N), then e^{-i pi k / (2N)} for k in [0, N/2]. Contiguous in k,
// so a warp whose lanes walk along a line loads them in a few wavefronts.
ARDENT_HD constexpr int twiddle_offset(int ln) {
    int o = 0;
    for (int l = 1; l < ln; ++l)
        o += (1 << l) + (1 << (l - 1)) + 1;
    return o;
}
inline constexpr int kTwiddles = twiddle_offset(kLog2MaxLine + 1);

template <typename C>
std::vector<C> dct_twiddles() {
    using Real = decltype(C{}.x);
    const double pi = 3.14159265358979323846;
    std::vector<C> t(kTwiddles);
    for (int ln = 1; ln <= kLog2MaxLine; ++ln) {
        const int n = 1 << ln, o = twiddle_offset(ln);
        auto set = [&](int i, double angle) {
            t[static_cast<size_t>(i)] = {static_cast<Real>(std::cos(angle)),
                                         static_cast<Real>(std::sin(angle))};
        };
        for (int k = 0; k < n; ++k)
            set(o + k, -2 * pi * k / n);
        for (int k = 0; k <= n / 2; ++k)
            set(o + n + k, -pi * k / (2.0 * n));
    }
    return t;
}

// Threads per block: float tiles and double tiles then take the same shared memory.
template <typename Real>
constexpr int log2_dct_threads() {
    return sizeof(Real) == 4 ? 8 : 7;
}
template <typename Real>
constexpr int dct_threads() {
    return 1 << log2_dct_threads<Real>();
}

// cos and sin on [0, pi] that the compiler evaluates, so the register DFTs' twiddles are
// immediates.
ARDENT_HD constexpr double taylor_cos(double x) {  // |x| <= pi/2: 14 terms reach 1e-19
    double term = 1, sum = 1;
    for (int n = 1; n < 14; ++n) {
        term *= -x * x / ((2.0 * n - 1) * (2.0 * n));
        sum += term;
    }
    return sum;
}
inline constexpr double kHalfPi = 1.57079632679489661923;
ARDENT_HD constexpr double const_cos(double x) {
    return x <= kHalfPi ? taylor_cos(x) : -taylor_cos(2 * kHalfPi - x);
}
ARDENT_HD constexpr double const_sin(double x) {
    return taylor_cos(x <= kHalfPi ? kHalfPi - x : x - kHalfPi);
}

// Calls f(std::integral_constant<int, K>) for K = 0 .. Count-1.
#pragma nv_exec_check_disable
template <typename F, int... K>
ARDENT_HD __forceinline__ constexpr void static_for_each(F& f, std::integer_sequence<int, K...>) {
    (f(std::integral_constant<int, K>{}), ...);
}
#pragma nv_exec_check_disable
template <int Count, typename F>
ARDENT_HD __forceinline__ constexpr void static_for(F&& f) {
    static_for_each(f, std::make_integer_sequence<int, Count>{});
}

template <typename C>
ARDENT_HD __forceinline__ C cadd(C a, C b) {
    return {a.x + b.x, a.y + b.y};
}
template <typename C>
ARDENT_HD __forceinline__ C csub(C a, C b) {
    return {a.x - b.x, a.y - b.y};
}
template <typename C>
ARDENT_HD __forceinline__ C cmul(C a, C b) {
    return {a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
template <typename C>
ARDENT_HD __forceinline__ C conj_of(C a) {
    return {a.x, -a.y};
}

// x e^{-2 pi i K / R} (forward) or x e^{+2 pi i K / R} (inverse).
template <int R, int K, bool Inverse, typename C>
ARDENT_HD __forceinline__ C twiddle(C x) {
    using Real = decltype(x.x);
    if constexpr (K == 0) {
        return x;
    } else if constexpr (4 * K == R) {
        return Inverse ? C{-x.y, x.x} : C{x.y, -x.x};
    } else {
        constexpr double angle = 4 * kHalfPi * K / R;
        constexpr Real c = static_cast<Real>(const_cos(angle));
        constexpr Real s = static_cast<Real>(const_sin(angle));
        return Inverse ? C{x.x * c - x.y * s, x.y * c + x.x * s}
                       : C{x.x * c + x.y * s, x.y * c - x.x * s};
    }
}

// Unnormalised R-point DFT of v in registers (radix-2 decimation in time, fully unrolled).
template <int R, bool Inverse, typename C>
ARDENT_HD __forceinline__ void dft(C* v) {
    if constexpr (R == 2) {
        const C a = v[0], b = v[1];
        v[0] = cadd(a, b);
        v[1] = csub(a, b);
    } else if constexpr (R > 2) {
        constexpr int H = R / 2;
        C e[H], o[H];
#pragma unroll
        for (int j = 0; j < H; ++j) {
            e[j] = v[2 * j];
            o[j] = v[2 * j + 1];
        }
        dft<H, Inverse>(e);
        dft<H, Inverse>(o);
        static_for<H>([&](auto kc) {
            constexpr int K = decltype(kc)::value;
            const C t = twiddle<R, K, Inverse>(o[K]);
            v[K] = cadd(e[K], t);
            v[K + H] = csub(e[K], t);
        });
    }
}

// Wavefronts of one warp's accesses to complex offsets addr(lane) in shared memory: a wavefront
// serves 128 bytes, each bank group as many times as it holds distinct addresses.
template <int Bytes, typename F>
constexpr int wavefronts(F addr) {
    constexpr int group = 128 / Bytes;  // lanes served per wavefront, and bank groups
    int total = 0;
    for (int first = 0; first < 32; first += group) {
        int worst = 0;
        for (int bank = 0; bank < group; ++bank) {
            int distinct = 0;
            for (int l = first; l < first + group; ++l) {
                const int a = addr(l);
                if (((a % group) + group) % group != bank) continue;
                bool seen = false;
                for (int m = first; m < l; ++m)
                    seen = seen || addr(m) == a;
                distinct += seen ? 0 : 1;
            }
            worst = worst > distinct ? worst : distinct;
        }
        total += worst;
    }
    return total;
}

// How a tile of lines of 2^LN points is cut: M complex points per line, R points per thread in
// the first pass, T threads per line, L lines per block, CS complex entries per line in shared
// memory (at least M + R for the padded exchange layout, chosen to spread the passes' accesses
// over the banks; the real spectrum of the inverse and z kernels reuses the same space).
template <typename Real, int LN>
struct LineShape {
    using C = typename Cplx<Real>::type;
    static constexpr int kLN = LN, N = 1 << LN;
    static constexpr int LM = LN > 0 ? LN - 1 : 0, M = 1 << LM;
    static constexpr int LR = LM <= 4 ? LM : LM <= 6 ? 3 : LM <= 8 ? 4 : 5;
    static constexpr int R = 1 << LR, LT = LM - LR, T = 1 << LT;
    static constexpr int kThreads = dct_threads<Real>();
    static constexpr int LL = log2_dct_threads<Real>() - LT, L = 1 << LL;
    static constexpr int kPer = LN > 0 ? N / T : 1;  // elements per thread in loads and stores
    static constexpr int LH = LM > 0 ? LM - 1 : 0, H = 1 << LH;       // pre/post items per line
    static constexpr int kItems = LN > 0 ? H / T : 1;                 // items per thread
    static constexpr int kTwA = twiddle_offset(LN), kTwB = kTwA + N;  // this length's twiddles

    static constexpr int cost(int cs) {
        auto natural = [cs](int lane) { return (lane >> LT) * cs + (lane & (T - 1)); };
        auto exchange = [cs](int lane) { return (lane >> LT) * cs + (T + 1) * (lane & (T - 1)); };
        auto across = [cs](int lane) { return (lane & (L - 1)) * cs + (lane >> LL); };
        return 3 * wavefronts<sizeof(C)>(natural) + (T > 1 ? wavefronts<sizeof(C)>(exchange) : 0) +
               2 * wavefronts<sizeof(C)>(across);
    }
    static constexpr int pick_cs() {
        const int lo = T > 1 ? M + R : M + 1;
        int best = lo;
        for (int cs = lo; cs < lo + 32; ++cs)
            if (cost(cs) < cost(best)) best = cs;
        return best;
    }
    static constexpr int CS = pick_cs();
    static constexpr size_t kSharedBytes = LN > 0 ? sizeof(C) * static_cast<size_t>(L* CS) : 0;
};

// Per-thread values that live across a barrier.
template <typename Real, int LN>
struct Regs {
    static constexpr int kLN = LN;
    typename Cplx<Real>::type v[LineShape<Real, LN>::R > 1 ? LineShape<Real, LN>::R : 2];
};

// Real j of an array of complex values.
template <typename C>
ARDENT_HD __forceinline__ auto& real_at(C* v, int j) {
    return (j & 1) ? v[j >> 1].y : v[j >> 1].x;
}

// Position in Makhoul's order of element n of an N-point sequence.
ARDENT_HD __forceinline__ int makhoul_pos(int n, int N) {
    return (n & 1) ? N - 1 - (n >> 1) : (n >> 1);
}

// The layout a DCT pass sees: a shape group of P partitions of nx x ny x nz cells, fastest index
// first ([p][z][y][x]). Sides are powers of two (up to kMaxLine) or, for the direct class
// (dct_direct.cuh), 2^a 3^b 5^c lengths up to 64.
struct GroupShape {
    int nx, ny, nz;
    long long count;  // partitions
};

ARDENT_HD __forceinline__ int side(const GroupShape& s, int axis) {
    return axis == 0 ? s.nx : axis == 1 ? s.ny : s.nz;
}

// Division of u < 2^31 by a divisor fixed on the host, as one widening multiply and a shift
// (Granlund and Montgomery's method): m = floor(2^(31+L) / d) + 1 with L = ceil(log2 d) fits 32
// bits, and m d = 2^(31+L) + e with e <= d makes the error u e / 2^(31+L) < 1 / d. The mixed
// groups' index arithmetic divides every element by the sides; a hardware-less 32-bit division
// is about twenty instructions.
struct FastDiv {
    unsigned d = 1, m = 0;
    int shift = 0;

    FastDiv() = default;
    explicit FastDiv(unsigned divisor) : d(divisor) {
        int l = 0;
        while ((1ULL << l) < divisor)
            ++l;
        shift = 31 + l;
        m = static_cast<unsigned>((1ULL << shift) / divisor + 1);
    }
    ARDENT_HD unsigned div(unsigned u) const {
        return static_cast<unsigned>((static_cast<unsigned long long>(u) * m) >> shift);
    }
    ARDENT_HD unsigned mod(unsigned u) const { return u - div(u) * d; }
};

// A shape group as the DCT kernels see it: where its cells and coefficients start, the log2 of
// its sides (-1 for a side that is not a power of two) and the first block of each axis's
// launch; for the direct class's axes, the lines per block and the axis's matrices; the
// divisions by x, y and the cells that mixed groups' tiles take. A compact group (dct_compact.cuh)
// is in none of the line classes' launches: one block per partition, every axis's matrices.
struct DctGroup {
    GroupShape shape;
    long long offset;  // first cell (air index)
    long long coef;    // first mode coefficient
    int log2n[3];
    long long first_block[3];
    int log2_direct_lines[3];  // direct class: log2 of the lines a block takes
    int direct_matrix[3];      // direct and compact classes: the axis's matrices (direct_offset)
    long long first_compact;   // compact class (dct_compact.cuh): the group's first block
    // Plane class (dct_plane.cuh): the group's first block in its launch, the xy planes a block
    // takes (0: the group's x and y passes are the line classes'), its launch (kPlaneSubs), the
    // bytes of the slab's copy and of each sub-block's work lines in shared memory.
    long long first_plane;
    int plane_slab, plane_launch;
    unsigned plane_bytes, plane_work;
    FastDiv by_x, by_y, by_cells;
    FastDiv by_lines[3];  // compact class: by a partition's lines along each axis
};

// The lines along `axis` of a group, in an order where consecutive lines are consecutive x
// (or, for the x axis, consecutive rows). Pow2: every side of the group is a power of two, and
// indices are shifts and masks; otherwise (a direct side anywhere in the group, whichever axis is
// transformed) divisions by the sides. The kernels are compiled for each (dct_kernels.cuh), so
// the power-of-two groups' tiles hold none of the divisions' registers and instructions. Lines
// and cells are counted from the group's first in 32 bits: a group has fewer than 2^31 cells
// (add_dct_group), and the tiles are bound by their instructions, of which 64-bit index
// arithmetic took two for one and the z kernel's mode batches spilled its registers.
template <bool Pow2>
struct Lines;

template <>
struct Lines<true> {
    int ln;     // log2 of the points per line
    int count;  // lines in the group
    int ls;     // log2 of the stride between a line's points
    int axis, lx, ly, lxy, lcells;

    ARDENT_HD Lines(const DctGroup& g, int a)
        : ln(g.log2n[a]),
          count(static_cast<int>(g.shape.count
                                 << (g.log2n[0] + g.log2n[1] + g.log2n[2] - g.log2n[a]))),
          ls(a == 0   ? 0
             : a == 1 ? g.log2n[0]
                      : g.log2n[0] + g.log2n[1]),
          axis(a),
          lx(g.log2n[0]),
          ly(g.log2n[1]),
          lxy(g.log2n[0] + g.log2n[1]),
          lcells(g.log2n[0] + g.log2n[1] + g.log2n[2]) {}
    // The x (a = 0) or y (a = 1) lines of `planes` consecutive 2^lx x 2^ly planes (dct_plane.cuh).
    ARDENT_HD Lines(int log2x, int log2y, int planes, int a)
        : ln(a == 0 ? log2x : log2y),
          count(planes << (a == 0 ? log2y : log2x)),
          ls(a == 0 ? 0 : log2x),
          axis(a),
          lx(log2x),
          ly(log2y),
          lxy(log2x + log2y),
          lcells(log2x + log2y) {}

    ARDENT_HD int base(int l) const {
        if (axis == 0) return l << lx;
        const int x = l & ((1 << lx) - 1), r = l >> lx;
        if (axis == 1) return (r << lxy) + x;                              // r = (p, z)
        return ((r >> ly) << lcells) + ((r & ((1 << ly) - 1)) << lx) + x;  // r = (p, y)
    }
    // Offset of a line's point k from its base.
    ARDENT_HD int step(int k) const { return k << ls; }
    // The mode coefficient of a group index (the partitions share them) and a partition's cells;
    // taken once per tile, so the mask is computed once.
    struct Coefs {
        int mask;
        ARDENT_HD int cells() const { return mask + 1; }
        ARDENT_HD int operator()(int g) const { return g & mask; }
    };
    ARDENT_HD Coefs coefs() const { return {(1 << lcells) - 1}; }
};

template <>
struct Lines<false> {
    int ln;     // log2 of the points per line (-1 on a direct axis)
    int count;  // lines in the group
    int axis;
    int stride;                    // a line's point stride
    unsigned xy, cells;            // a partition's cells in one z plane and in all
    FastDiv by_x, by_y, by_cells;  // the group's (DctGroup)

    ARDENT_HD Lines(const DctGroup& g, int a)
        : ln(g.log2n[a]),
          count(0),
          axis(a),
          stride(a == 0   ? 1
                 : a == 1 ? g.shape.nx
                          : g.shape.nx * g.shape.ny),
          xy(static_cast<unsigned>(g.shape.nx * g.shape.ny)),
          cells(static_cast<unsigned>(g.shape.nx * g.shape.ny * g.shape.nz)),
          by_x(g.by_x),
          by_y(g.by_y),
          by_cells(g.by_cells) {
        count = static_cast<int>(g.shape.count * (cells / side(g.shape, a)));
    }

    ARDENT_HD int base(int l) const {
        const unsigned u = static_cast<unsigned>(l);
        if (axis == 0) return static_cast<int>(u * by_x.d);
        const unsigned r = by_x.div(u), x = u - r * by_x.d;
        if (axis == 1) return static_cast<int>(r * xy + x);
        const unsigned p = by_y.div(r), y = r - p * by_y.d;
        return static_cast<int>(p * cells + y * by_x.d + x);
    }
    ARDENT_HD int step(int k) const { return k * stride; }
    struct Coefs {
        FastDiv by;
        ARDENT_HD int cells() const { return static_cast<int>(by.d); }
        ARDENT_HD int operator()(int g) const {
            return static_cast<int>(by.mod(static_cast<unsigned>(g)));
        }
    };
    ARDENT_HD Coefs coefs() const { return {by_cells}; }
};

template <typename Real, bool Pow2>
struct Tile {
    Lines<Pow2> ls;
    int first;                               // first line
    typename Cplx<Real>::type* work;         // shared memory: CS complex entries per line
    const typename Cplx<Real>::type* roots;  // the twiddle table (dct_twiddles)
};

template <typename Real, int LN, bool Pow2>
ARDENT_HD __forceinline__ Tile<Real, Pow2> make_tile(const DctGroup& g, int axis, long long block,
                                                     void* smem,
                                                     const typename Cplx<Real>::type* roots) {
    return {Lines<Pow2>(g, axis),
            static_cast<int>((block - g.first_block[axis]) << LineShape<Real, LN>::LL),
            static_cast<typename Cplx<Real>::type*>(smem), roots};
}

// The line a thread takes on y and z in loads, stores, the mode update and the bins' stores
// (there all of a thread's elements and items lie on line tid & (L - 1)): its first cell in the
// group, -1 past the group's last line. Found once per phase: found per element, its shifts and
// masks were most of the z kernel's instructions (the compiler did not merge them). 0 on x.
template <typename S, typename Real, bool Pow2>
ARDENT_HD __forceinline__ int thread_line(const Tile<Real, Pow2>& t, int tid) {
    if (t.ls.axis == 0) return 0;
    const int i = tid & (S::L - 1);
    return t.first + i < t.ls.count ? t.ls.base(t.first + i) : -1;
}

// Element j of thread tid in loads, stores and the mode update (`line`: thread_line): its line
// i, its position k along the line and its index in the group (-1 past the group's last line).
// On x consecutive threads walk along a tile that is one contiguous run; on y and z across lines
// (consecutive x).
template <typename S, typename Real, bool Pow2>
ARDENT_HD __forceinline__ int element(const Tile<Real, Pow2>& t, int line, int tid, int j, int& i,
                                      int& k) {
    if (t.ls.axis == 0) {
        const int e = tid + j * S::kThreads;
        i = e >> S::kLN;
        k = e & (S::N - 1);
        return t.first + i < t.ls.count ? (t.first << t.ls.ln) + e : -1;
    }
    i = tid & (S::L - 1);
    k = (tid >> S::LL) + j * S::T;
    return line >= 0 ? line + t.ls.step(k) : -1;
}

// Item j of thread tid in the spectrum's pre- and post-processing: its line i and kk in [0, H).
// Item kk > 0 covers bins kk, N - kk, M - kk and M + kk; item 0 bins 0, M, M/2 and N - M/2.
template <typename S>
ARDENT_HD __forceinline__ void item(int axis, int tid, int j, int& i, int& kk) {
    const int q = tid + j * S::kThreads;
    if (axis == 0) {
        i = q >> S::LH;
        kk = q & (S::H - 1);
    } else {
        i = q & (S::L - 1);
        kk = q >> S::LL;
    }
}

template <typename S>
ARDENT_HD __forceinline__ int item_bins(int kk, int (&bin)[4]) {
    if (kk > 0) {
        bin[0] = kk;
        bin[1] = S::N - kk;
        bin[2] = S::M - kk;
        bin[3] = S::M + kk;
        return 4;
    }
    bin[0] = 0;
    bin[1] = S::M;
    bin[2] = S::M / 2;
    bin[3] = S::N - S::M / 2;
    return S::M >= 2 ? 4 : 2;
}

// REDFT10 bins k and N - k from z = Z_k and zc = conj(Z_{M-k}), Z the packed line's FFT:
// V_k = E_k + e^{-2 pi i k / N} O_k from the even and odd halves, then the quarter-wave twiddle.
template <typename S, typename C, typename Real>
ARDENT_HD __forceinline__ void bin_pair(C z, C zc, int k, const C* roots, Real& lo, Real& hi) {
    const C ev = {(z.x + zc.x) / 2, (z.y + zc.y) / 2};
    const C od = {(z.y - zc.y) / 2, -(z.x - zc.x) / 2};
    const C V = cadd(ev, cmul(roots[S::kTwA + k], od));
    const C tw = roots[S::kTwB + k];  // e^{-i pi k / (2N)} = (c, -s)
    const Real c = tw.x, s = -tw.y;
    lo = 2 * (c * V.x + s * V.y);
    hi = 2 * (s * V.x - c * V.y);
}

// The bins of item kk (in item_bins' order) from the line's FFT.
template <typename S, typename C, typename Real>
ARDENT_HD __forceinline__ void item_forward(const C* line, int kk, const C* roots, Real (&out)[4]) {
    if (kk > 0) {
        const C a = line[kk], b = line[S::M - kk];
        bin_pair<S>(a, conj_of(b), kk, roots, out[0], out[1]);
        bin_pair<S>(b, conj_of(a), S::M - kk, roots, out[2], out[3]);
        return;
    }
    const C a = line[0];
    Real unused;
    bin_pair<S>(a, conj_of(a), 0, roots, out[0], unused);
    bin_pair<S>(a, conj_of(a), S::M, roots, out[1], unused);
    out[2] = out[3] = Real(0);
    if constexpr (S::M >= 2) {
        const C h = line[S::M / 2];
        bin_pair<S>(h, conj_of(h), S::M / 2, roots, out[2], out[3]);
    }
}

// Y_k of the length-N real inverse FFT from bins x_k and x_{N-k}.
template <typename S, typename C, typename Real>
ARDENT_HD __forceinline__ C half_of(int k, Real xk, Real xnk, const C* roots) {
    const C tw = roots[S::kTwB + k];
    const Real c = tw.x, s = -tw.y;
    return {c * xk + s * xnk, s * xk - c * xnk};
}

// Entry k of the packed half-length spectrum from Y_k and conj(Y_{M-k}).
template <typename S, typename C>
ARDENT_HD __forceinline__ C packed(int k, C y, C ym, const C* roots) {
    const C a = cadd(y, ym);
    C w = roots[S::kTwA + k];
    w.y = -w.y;  // e^{+2 pi i k / N}
    const C b = cmul(csub(y, ym), w);
    return {a.x - b.y, a.y + b.x};
}

// Packed entries kk and M - kk (item 0: 0 and M/2) from the item's bins.
template <typename S, typename C, typename Real>
ARDENT_HD __forceinline__ void item_inverse(const Real* bins, int kk, const C* roots, C& first,
                                            C& second) {
    if (kk > 0) {
        const C y1 = half_of<S>(kk, bins[kk], bins[S::N - kk], roots);
        const C y2 = half_of<S>(S::M - kk, bins[S::M - kk], bins[S::M + kk], roots);
        first = packed<S>(kk, y1, conj_of(y2), roots);
        second = packed<S>(S::M - kk, y2, conj_of(y1), roots);
        return;
    }
    const C y0 = half_of<S>(0, bins[0], Real(0), roots);
    const C ym = half_of<S>(S::M, bins[S::M], bins[S::M], roots);
    first = packed<S>(0, y0, conj_of(ym), roots);
    second = first;
    if constexpr (S::M >= 2) {
        const C yh = half_of<S>(S::M / 2, bins[S::M / 2], bins[S::N - S::M / 2], roots);
        second = packed<S>(S::M / 2, yh, conj_of(yh), roots);
    }
}

// The phases of a tile. Block::phase(f) runs f(thread, its registers) for every thread of the
// block and then meets at a barrier; Block::run does the same without the barrier. The device's
// Block is the real block; the host emulation's runs the threads one after another.

// Loads the tile's lines into the work lines, as reals: in Makhoul's order (`Packed`, the
// forward transforms) or as they are (spectra, the inverse). With `clear` (`in`, whose next user
// wants it zero) the loaded lines are zeroed there.
#pragma nv_exec_check_disable
template <typename Real, int LN, bool Packed, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void load_lines(Block& b, const Tile<Real, Pow2>& t, const Real* in,
                                          Real* clear) {
    using S = LineShape<Real, LN>;
    b.phase([&](int tid, Regs<Real, LN>& r) {
        Real* w = reinterpret_cast<Real*>(t.work);
        const int line = thread_line<S>(t, tid);
#pragma unroll
        for (int j = 0; j < S::kPer; ++j) {
            int i, k;
            const int g = element<S>(t, line, tid, j, i, k);
            real_at(r.v, j) = g >= 0 ? in[g] : Real(0);
        }
        if (clear) {
#pragma unroll
            for (int j = 0; j < S::kPer; ++j) {
                int i, k;
                const int g = element<S>(t, line, tid, j, i, k);
                if (g >= 0) clear[g] = Real(0);
            }
        }
#pragma unroll
        for (int j = 0; j < S::kPer; ++j) {
            int i, k;
            element<S>(t, line, tid, j, i, k);
            w[2 * i * S::CS + (Packed ? makhoul_pos(k, S::N) : k)] = real_at(r.v, j);
        }
    });
}

// Stores the inverse FFT's packed output, undoing Makhoul's order.
#pragma nv_exec_check_disable
template <typename Real, int LN, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void store_packed(Block& b, const Tile<Real, Pow2>& t, Real* out) {
    using S = LineShape<Real, LN>;
    b.run([&](int tid, Regs<Real, LN>&) {
        const Real* w = reinterpret_cast<const Real*>(t.work);
        const int line = thread_line<S>(t, tid);
#pragma unroll
        for (int j = 0; j < S::kPer; ++j) {
            int i, k;
            const int g = element<S>(t, line, tid, j, i, k);
            if (g >= 0) out[g] = w[2 * i * S::CS + makhoul_pos(k, S::N)];
        }
    });
}

// Unnormalised complex FFT of M points of every work line, in place, natural order in and out.
// Pass 1: thread tt of a line takes the points tt + T r, does their R-point DFT and multiplies
// output k1 by W_M^{tt k1}. Pass 2 (T > 1): through a padded layout (entry tt + (T + 1) k1, so
// both passes' accesses spread over the banks), the T-point DFTs over tt give X[k1 + R k2].
#pragma nv_exec_check_disable
template <typename Real, int LN, bool Inverse, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void tile_fft(Block& b, const Tile<Real, Pow2>& t) {
    using S = LineShape<Real, LN>;
    using C = typename Cplx<Real>::type;
    if constexpr (S::T == 1) {
        b.phase([&](int tid, Regs<Real, LN>& r) {
            C* line = t.work + tid * S::CS;
#pragma unroll
            for (int q = 0; q < S::R; ++q)
                r.v[q] = line[q];
            dft<S::R, Inverse>(r.v);
#pragma unroll
            for (int q = 0; q < S::R; ++q)
                line[q] = r.v[q];
        });
    } else {
        b.phase([&](int tid, Regs<Real, LN>& r) {
            const int i = tid >> S::LT, tt = tid & (S::T - 1);
            const C* line = t.work + i * S::CS;
#pragma unroll
            for (int q = 0; q < S::R; ++q)
                r.v[q] = line[tt + q * S::T];
            dft<S::R, Inverse>(r.v);
#pragma unroll
            for (int q = 1; q < S::R; ++q) {
                C w = t.roots[S::kTwA + 2 * ((tt * q) & (S::M - 1))];  // W_M^{tt q}
                if (Inverse) w.y = -w.y;
                r.v[q] = cmul(r.v[q], w);
            }
        });
        b.phase([&](int tid, Regs<Real, LN>& r) {
            const int i = tid >> S::LT, tt = tid & (S::T - 1);
            C* line = t.work + i * S::CS;
#pragma unroll
            for (int q = 0; q < S::R; ++q)
                line[tt + q * (S::T + 1)] = r.v[q];
        });
        b.phase([&](int tid, Regs<Real, LN>& r) {
            const int i = tid >> S::LT, tt = tid & (S::T - 1);
            const C* line = t.work + i * S::CS;
#pragma unroll
            for (int jj = 0; jj < S::R / S::T; ++jj) {
                const int k1 = tt + jj * S::T;
#pragma unroll
                for (int q = 0; q < S::T; ++q)
                    r.v[jj * S::T + q] = line[q + k1 * (S::T + 1)];
                dft<S::T, Inverse>(r.v + jj * S::T);
            }
        });
        b.phase([&](int tid, Regs<Real, LN>& r) {
            const int i = tid >> S::LT, tt = tid & (S::T - 1);
            C* line = t.work + i * S::CS;
#pragma unroll
            for (int jj = 0; jj < S::R / S::T; ++jj)
#pragma unroll
                for (int k2 = 0; k2 < S::T; ++k2)
                    line[tt + jj * S::T + k2 * S::R] = r.v[jj * S::T + k2];
        });
    }
}

// The forward transform's bins, from the FFT in the work lines, to `out` in the group's layout.
#pragma nv_exec_check_disable
template <typename Real, int LN, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void store_bins(Block& b, const Tile<Real, Pow2>& t, Real* out) {
    using S = LineShape<Real, LN>;
    b.run([&](int tid, Regs<Real, LN>&) {
        const int line = thread_line<S>(t, tid);  // on y and z, every item's (item's i)
#pragma unroll
        for (int j = 0; j < S::kItems; ++j) {
            int i, kk, bin[4];
            item<S>(t.ls.axis, tid, j, i, kk);
            Real v[4];
            item_forward<S>(t.work + i * S::CS, kk, t.roots, v);
            const int n = item_bins<S>(kk, bin);
            const int base = t.ls.axis != 0             ? line
                             : t.first + i < t.ls.count ? t.ls.base(t.first + i)
                                                        : -1;
            if (base < 0) continue;
#pragma unroll
            for (int q = 0; q < 4; ++q)
                if (q < n) out[base + t.ls.step(bin[q])] = v[q];
        }
    });
}

// The forward transform's bins into the work lines (as reals, bin k of line i at 2 i CS + k).
#pragma nv_exec_check_disable
template <typename Real, int LN, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void bins_to_work(Block& b, const Tile<Real, Pow2>& t) {
    using S = LineShape<Real, LN>;
    b.phase([&](int tid, Regs<Real, LN>& r) {
#pragma unroll
        for (int j = 0; j < S::kItems; ++j) {
            int i, kk;
            item<S>(t.ls.axis, tid, j, i, kk);
            Real v[4];
            item_forward<S>(t.work + i * S::CS, kk, t.roots, v);
#pragma unroll
            for (int q = 0; q < 4; ++q)
                real_at(r.v, 4 * j + q) = v[q];
        }
    });
    b.phase([&](int tid, Regs<Real, LN>& r) {
        Real* w = reinterpret_cast<Real*>(t.work);
#pragma unroll
        for (int j = 0; j < S::kItems; ++j) {
            int i, kk, bin[4];
            item<S>(t.ls.axis, tid, j, i, kk);
            const int n = item_bins<S>(kk, bin);
#pragma unroll
            for (int q = 0; q < 4; ++q)
                if (q < n) w[2 * i * S::CS + bin[q]] = real_at(r.v, 4 * j + q);
        }
    });
}

// The packed half-length spectra whose inverse FFTs are the REDFT01 of the bins in the work
// lines, in place.
#pragma nv_exec_check_disable
template <typename Real, int LN, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void pack_inverse(Block& b, const Tile<Real, Pow2>& t) {
    using S = LineShape<Real, LN>;
    b.phase([&](int tid, Regs<Real, LN>& r) {
        const Real* w = reinterpret_cast<const Real*>(t.work);
#pragma unroll
        for (int j = 0; j < S::kItems; ++j) {
            int i, kk;
            item<S>(t.ls.axis, tid, j, i, kk);
            item_inverse<S>(w + 2 * i * S::CS, kk, t.roots, r.v[2 * j], r.v[2 * j + 1]);
        }
    });
    b.phase([&](int tid, Regs<Real, LN>& r) {
#pragma unroll
        for (int j = 0; j < S::kItems; ++j) {
            int i, kk;
            item<S>(t.ls.axis, tid, j, i, kk);
            auto* line = t.work + i * S::CS;
            line[kk] = r.v[2 * j];
            if (kk > 0)
                line[S::M - kk] = r.v[2 * j + 1];
            else if (S::M >= 2)
                line[S::M / 2] = r.v[2 * j + 1];
        }
    });
}

// Forward DCT (REDFT10) of the tile's lines of `data` (the group's cells), in place. Lines of
// one point are the factor 2 alone.
#pragma nv_exec_check_disable
template <typename Real, int LN, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void forward_tile(Block& b, const Tile<Real, Pow2>& t, Real* data) {
    using S = LineShape<Real, LN>;
    if constexpr (LN == 0) {
        b.run([&](int tid, Regs<Real, LN>&) {
            int i, k;
            const int g = element<S>(t, thread_line<S>(t, tid), tid, 0, i, k);
            if (g >= 0) data[g] *= 2;
        });
    } else {
        load_lines<Real, LN, true>(b, t, data, nullptr);
        tile_fft<Real, LN, false>(b, t);
        store_bins<Real, LN>(b, t, data);
    }
}

// Inverse DCT (REDFT01, unnormalised) of the tile's lines from `in` to `out` (which may be `in`);
// with `clear` (`in`, not `out`), the lines of `in` are left zero.
#pragma nv_exec_check_disable
template <typename Real, int LN, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void inverse_tile(Block& b, const Tile<Real, Pow2>& t, const Real* in,
                                            Real* out, Real* clear) {
    using S = LineShape<Real, LN>;
    if constexpr (LN == 0) {
        b.run([&](int tid, Regs<Real, LN>&) {
            int i, k;
            const int g = element<S>(t, thread_line<S>(t, tid), tid, 0, i, k);
            if (g < 0) return;
            const Real v = in[g];
            if (clear) clear[g] = Real(0);
            out[g] = v;
        });
    } else {
        load_lines<Real, LN, false>(b, t, in, clear);
        pack_inverse<Real, LN>(b, t);
        tile_fft<Real, LN, true>(b, t);
        store_packed<Real, LN>(b, t, out);
    }
}

// Mode arrays and coefficients of the z kernel, and a group's first cell and coefficient in
// them. The arrays stay the kernel's parameters and the group's start is added to each index:
// five pointers moved to the group's start held ten registers through a z kernel's phases, and
// the 128-point lines' kernel spilled them.
template <typename Real>
struct ModeArrays {
    Real* cur;
    Real* old;  // receives the new level
    const Real* a;
    const Real* b;
    const Real* phi;
    int cell0 = 0, coef0 = 0;
};

// A group's mode arrays: its levels from its first cell, its coefficients from its first one
// (fewer than 2^31 of each: add_dct_group).
template <typename Real>
ARDENT_HD __forceinline__ ModeArrays<Real> group_modes(const ModeArrays<Real>& m,
                                                       const DctGroup& g) {
    return {m.cur, m.old, m.a, m.b, m.phi, static_cast<int>(g.offset), static_cast<int>(g.coef)};
}

// Modes per batch of advance_modes.
inline constexpr int kModeBatch = 4;

// B modes (g[j] < 0: none), mode j with coefficient c[j] and its forcing's spectrum at
// work[slot[j]]: p_new = a p - p_old + b f into the old level (for `init`, the DCT of the initial
// field scaled by the round trip's 1/(8 cells), into both levels), and phi p_new, the filtered
// mode the inverse transform takes, back into work[slot[j]]. Every read comes before any store:
// one mode at a time, the store to `old` might alias the next mode's reads as far as the compiler
// knows, so each mode waited a whole memory latency for its reads.
template <int B, typename Real, typename Slot>
ARDENT_HD __forceinline__ void advance_modes(const ModeArrays<Real>& m, const int (&g)[B],
                                             const int (&c)[B], Real* work, const Slot (&slot)[B],
                                             bool init, Real init_scale) {
    Real f[B], a[B], b[B], cur[B], old[B], phi[B];
#pragma unroll
    for (int j = 0; j < B; ++j) {
        f[j] = a[j] = b[j] = cur[j] = old[j] = phi[j] = Real(0);
        if (g[j] < 0) continue;
        f[j] = work[slot[j]];
        phi[j] = m.phi[m.coef0 + c[j]];
        if (init) continue;
        a[j] = m.a[m.coef0 + c[j]];
        b[j] = m.b[m.coef0 + c[j]];
        cur[j] = m.cur[m.cell0 + g[j]];
        old[j] = m.old[m.cell0 + g[j]];
    }
#pragma unroll
    for (int j = 0; j < B; ++j) {
        if (g[j] < 0) continue;
        const Real pn = init ? f[j] * init_scale : mode_update(a[j], b[j], cur[j], old[j], f[j]);
        if (init) m.cur[m.cell0 + g[j]] = pn;
        m.old[m.cell0 + g[j]] = pn;
        work[slot[j]] = phi[j] * pn;
    }
}

// The z axis: forward DCT of the forcing, the mode update, then the inverse DCT of the filtered
// modes, all in place in `data`; the spectrum never travels through global memory.
#pragma nv_exec_check_disable
template <typename Real, int LN, typename Block, bool Pow2>
ARDENT_HD __forceinline__ void z_modes_tile(Block& b, const Tile<Real, Pow2>& t, Real* data,
                                            const ModeArrays<Real>& m, bool init) {
    using S = LineShape<Real, LN>;
    const auto coef = t.ls.coefs();
    const Real init_scale = static_cast<Real>(1.0 / (8.0 * static_cast<double>(coef.cells())));
    if constexpr (LN == 0) {
        b.run([&](int tid, Regs<Real, LN>&) {
            int i, k;
            const int g[1] = {element<S>(t, thread_line<S>(t, tid), tid, 0, i, k)};
            const int c[1] = {g[0] >= 0 ? coef(g[0]) : 0};
            if (g[0] >= 0) data[g[0]] *= 2;  // a one-point line's REDFT10
            advance_modes(m, g, c, data, g, init, init_scale);
        });
    } else {
        load_lines<Real, LN, true>(b, t, data, nullptr);
        tile_fft<Real, LN, false>(b, t);
        bins_to_work<Real, LN>(b, t);
        b.phase([&](int tid, Regs<Real, LN>&) {
            Real* w = reinterpret_cast<Real*>(t.work);
            constexpr int B = S::kPer < kModeBatch ? S::kPer : kModeBatch;
            const int line = thread_line<S>(t, tid);
            // A z line's coefficients lie along it as its cells do (a line stays in its partition).
            const int coef_line = line >= 0 ? coef(line) : 0;
#pragma unroll
            for (int j0 = 0; j0 < S::kPer; j0 += B) {
                int g[B], c[B], slot[B];
#pragma unroll
                for (int j = 0; j < B; ++j) {
                    int i, k;
                    g[j] = element<S>(t, line, tid, j0 + j, i, k);
                    c[j] = g[j] < 0 ? 0 : t.ls.axis == 0 ? coef(g[j]) : coef_line + (g[j] - line);
                    slot[j] = 2 * i * S::CS + k;
                }
                advance_modes(m, g, c, w, slot, init, init_scale);
            }
        });
        pack_inverse<Real, LN>(b, t);
        tile_fft<Real, LN, true>(b, t);
        store_packed<Real, LN>(b, t, data);
    }
}

}  // namespace ardent::ard::cuda
