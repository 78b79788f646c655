// The direct class of the CUDA ARD backend's batched DCTs (dct_kernels.cuh): lines whose length
// is a 2^a 3^b 5^c number up to 64 but not a power of two, which the decomposition gives small
// partitions and which Makhoul's power-of-two FFTs (dct_tile.cuh) cannot take. Such a line is
// transformed by a dense N x N cosine matrix, one table of them for every length (the compact
// class, dct_compact.cuh, takes the table's powers of two up to 64 as well; N^2 / 2
// multiply-adds per line through its mirror symmetry; the lines are short). A block takes LPB lines
// of one group along one axis, loads them into shared memory point-major (point k of line i at
// k (LPB + 1) + i), multiplies, and stores them back with the same addressing as the load. The
// tiles use the Block abstraction of dct_tile.cuh, so the host emulation runs them too, and keep
// its scaling: REDFT10 forward, REDFT01 inverse, both unnormalised like FFTW's.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "dct_tile.cuh"

namespace ardent::ard::cuda {

// The longest direct line.
inline constexpr int kMaxDirectLine = 64;
// Global reads a thread issues at once in a load (direct_load).
inline constexpr int kDirectBatch = 4;

ARDENT_HD constexpr bool is_pow2(long long n) {
    return n > 0 && (n & (n - 1)) == 0;
}

// Whether lines of n points take the direct class: 2^a 3^b 5^c, at most kMaxDirectLine and not
// a power of two.
ARDENT_HD constexpr bool is_direct_length(int n) {
    if (n < 2 || n > kMaxDirectLine || is_pow2(n)) return false;
    while (n % 2 == 0)
        n /= 2;
    while (n % 3 == 0)
        n /= 3;
    while (n % 5 == 0)
        n /= 5;
    return n == 1;
}

// Whether lines of n points have cosine matrices in the table (direct_matrices): the direct
// lengths and, for the compact groups' whole-partition tiles (dct_compact.cuh), the powers of two
// up to kMaxDirectLine, 1 included.
ARDENT_HD constexpr bool is_matrix_length(int n) {
    return is_direct_length(n) || (n >= 1 && n <= kMaxDirectLine && is_pow2(n));
}

// Output pairs one thread computes at once (direct_forward_apply, direct_inverse_apply).
inline constexpr int kDirectPairs = 4;

ARDENT_HD constexpr int round_up_pairs(int v) {
    return (v + kDirectPairs - 1) / kDirectPairs * kDirectPairs;
}

// Length n's matrices, F[k][j] = 2 cos(pi k (2j + 1) / (2n)) forward and
// I[j][k] = (k == 0 ? 1 : 2) cos(pi k (2j + 1) / (2n)) inverse, laid out for the mirrored sums
// (direct_forward_apply) with a thread's kDirectPairs outputs side by side, so that one 16-byte
// read brings them all: the even rows E[j][m] = F[2m][j] for j < (n + 1) / 2 (the last one an odd
// line's middle point), then the odd rows O[j][m] = F[2m + 1][j] for j < n / 2, each of
// round_up_pairs((n + 1) / 2) entries; then the inverse transposed, T[k][j] = I[j][k] for
// j < (n + 1) / 2, rows of the same width. Entries past a length's outputs are zero.
ARDENT_HD constexpr int direct_width(int n) {
    return round_up_pairs((n + 1) / 2);
}
ARDENT_HD constexpr int direct_size(int n) {
    return ((n + 1) / 2 + n / 2 + n) * direct_width(n);
}
// Where length n's matrices start in the table (matrix lengths in increasing order; every start
// a multiple of kDirectPairs entries, so the 16-byte reads are aligned).
ARDENT_HD constexpr int direct_offset(int n) {
    int o = 0;
    for (int m = 1; m < n; ++m)
        if (is_matrix_length(m)) o += direct_size(m);
    return o;
}
inline constexpr int kDirectTable = direct_offset(kMaxDirectLine + 1);

template <typename Real>
std::vector<Real> direct_matrices() {
    const double pi = 3.14159265358979323846;
    std::vector<Real> t(kDirectTable, Real(0));
    for (int n = 1; n <= kMaxDirectLine; ++n) {
        if (!is_matrix_length(n)) continue;
        const int w = direct_width(n), half = (n + 1) / 2;
        Real* even = t.data() + direct_offset(n);
        Real* odd = even + half * w;
        Real* inv = odd + (n / 2) * w;
        // cos(pi k (2j + 1) / (2n)) with the angle reduced to one period (cos sees a small,
        // exactly known argument) and exact zeros at odd multiples of pi/2: the mirror split
        // relies on them.
        const auto c = [&](int k, int j) {
            const int q = (k * (2 * j + 1)) % (4 * n);
            return q % (2 * n) == n ? 0.0 : std::cos(pi * q / (2.0 * n));
        };
        for (int m = 0; m < half; ++m) {
            for (int j = 0; j < half; ++j)
                even[j * w + m] = static_cast<Real>(2 * c(2 * m, j));
            if (2 * m + 1 < n)
                for (int j = 0; j < n / 2; ++j)
                    odd[j * w + m] = static_cast<Real>(2 * c(2 * m + 1, j));
        }
        for (int k = 0; k < n; ++k)
            for (int j = 0; j < half; ++j)
                inv[k * w + j] = static_cast<Real>(k == 0 ? c(k, j) : 2 * c(k, j));
    }
    return t;
}

// Lines per block for lines of n points: the largest power of two with LPB n <= 4 threads (two
// to four outputs per thread, so the block's threads stay busy), but at least 32, so that a
// warp's lanes take 32 lines at one point (coalesced on y and z, a broadcast matrix load), and
// at most 256.
template <typename Real>
constexpr int direct_log2_lines(int n) {
    int l = 5;
    while (l < 8 && (2 << l) * n <= 4 * dct_threads<Real>())
        ++l;
    return l;
}

// Two buffers of n points of LPB lines, each point's lines padded by one entry so that the x
// axis's transposing load and store spread over the banks.
template <typename Real>
constexpr size_t direct_shared_bytes(int n, int log2_lines) {
    return 2 * sizeof(Real) * static_cast<size_t>(n) * static_cast<size_t>((1 << log2_lines) + 1);
}

// A direct tile keeps nothing in registers across a barrier.
struct DirectRegs {};

template <typename Real>
struct DirectTile {
    Lines<false> ls;           // a direct side: never all powers of two
    int first;                 // first line
    int n, log2_lines, pitch;  // points per line, log2 of LPB, shared entries per point
    Real* a;           // shared memory: the lines as loaded, point k of line i at k pitch + i
    Real* b;           // shared memory: the transformed lines, the same layout
    const Real* even;  // this length's matrices (direct_matrices): E, O and T
    const Real* odd;
    const Real* inverse;
};

template <typename Real>
ARDENT_HD __forceinline__ DirectTile<Real> make_direct_tile(const DctGroup& g, int axis,
                                                            long long block, void* smem,
                                                            const Real* table) {
    const int n = side(g.shape, axis), ll = g.log2_direct_lines[axis], pitch = (1 << ll) + 1;
    Real* a = static_cast<Real*>(smem);
    const Real* f = table + g.direct_matrix[axis];
    const Lines<false> ls(g, axis);
    const int w = direct_width(n);
    return {ls,
            static_cast<int>((block - g.first_block[axis]) << ll),
            n,
            ll,
            pitch,
            a,
            a + n * pitch,
            f,
            f + (n + 1) / 2 * w,
            f + ((n + 1) / 2 + n / 2) * w};
}

// A thread's line on y and z in loads, stores and the mode update: there a tile's element e is
// point e >> log2_lines of line e & (LPB - 1), and LPB divides the block's threads, so a thread's
// elements (tid, tid + threads, ...) all lie on one line, whose first cell (a division or two) is
// found once per phase instead of once per element. Unused on x.
struct DirectLine {
    int i;     // the line in the tile
    int base;  // its first cell in the group, -1 past the group's last line
};

template <typename Real>
ARDENT_HD __forceinline__ DirectLine direct_line(const DirectTile<Real>& t, int tid) {
    const int i = tid & ((1 << t.log2_lines) - 1);
    return {i, t.ls.axis != 0 && t.first + i < t.ls.count ? t.ls.base(t.first + i) : -1};
}

// Element e of a tile in loads, stores and the mode update (`line`: the thread's, direct_line):
// its shared-memory slot and its index in the group (-1 past the group's last line). On x a
// tile's lines are one contiguous run, walked in order; on y and z consecutive e are consecutive
// lines (consecutive x).
template <typename Real>
ARDENT_HD __forceinline__ int direct_element(const DirectTile<Real>& t, const DirectLine& line,
                                             int e, int& slot) {
    if (t.ls.axis == 0) {  // t.n is the group's x side
        const int i = static_cast<int>(t.ls.by_x.div(static_cast<unsigned>(e)));
        const int k = e - i * t.n;
        slot = k * t.pitch + i;
        return t.first + i < t.ls.count ? t.ls.base(t.first + i) + t.ls.step(k) : -1;
    }
    const int k = e >> t.log2_lines;
    slot = k * t.pitch + line.i;
    return line.base >= 0 ? line.base + t.ls.step(k) : -1;
}

// kDirectPairs consecutive entries of the matrix table (aligned: direct_offset) through the
// read-only cache, in 16-byte reads.
template <typename Real>
ARDENT_HD __forceinline__ void read_pairs(const Real* p, Real (&v)[kDirectPairs]) {
    static_assert(kDirectPairs == 4);
#ifdef __CUDA_ARCH__
    if constexpr (sizeof(Real) == 4) {
        const float4 q = __ldg(reinterpret_cast<const float4*>(p));
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
        const double2 q0 = __ldg(reinterpret_cast<const double2*>(p));
        const double2 q1 = __ldg(reinterpret_cast<const double2*>(p) + 1);
        v[0] = q0.x, v[1] = q0.y, v[2] = q1.x, v[3] = q1.y;
    }
#else
    for (int r = 0; r < kDirectPairs; ++r)
        v[r] = p[r];
#endif
}

// Loads the tile's lines from `in` into buffer a (zero past the group's last line); with
// `clear` (`in`, whose next user wants it zero) the loaded elements are zeroed there. A thread
// issues kDirectBatch reads before it stores any (a store to `clear` may alias a later read, so
// the compiler keeps them in program order, one read per memory latency).
#pragma nv_exec_check_disable
template <typename Real, typename Block>
ARDENT_HD __forceinline__ void direct_load(Block& b, const DirectTile<Real>& t, const Real* in,
                                           Real* clear) {
    b.phase([&](int tid, DirectRegs&) {
        constexpr int B = kDirectBatch, T = dct_threads<Real>();
        const int total = t.n << t.log2_lines;
        const DirectLine line = direct_line(t, tid);
        for (int e0 = tid; e0 < total; e0 += B * T) {
            int g[B], slot[B];
            Real v[B];
#pragma unroll
            for (int j = 0; j < B; ++j) {
                slot[j] = -1;
                g[j] = e0 + j * T < total ? direct_element(t, line, e0 + j * T, slot[j]) : -1;
                v[j] = g[j] >= 0 ? in[g[j]] : Real(0);
            }
#pragma unroll
            for (int j = 0; j < B; ++j) {
                if (slot[j] < 0) continue;
                t.a[slot[j]] = v[j];
                if (clear && g[j] >= 0) clear[g[j]] = Real(0);
            }
        }
    });
}

// Stores buffer `from` to `out`, mirroring the load.
#pragma nv_exec_check_disable
template <typename Real, typename Block>
ARDENT_HD __forceinline__ void direct_store(Block& b, const DirectTile<Real>& t, const Real* from,
                                            Real* out) {
    b.run([&](int tid, DirectRegs&) {
        const DirectLine line = direct_line(t, tid);
        for (int e = tid; e < (t.n << t.log2_lines); e += dct_threads<Real>()) {
            int slot;
            const int g = direct_element(t, line, e, slot);
            if (g >= 0) out[g] = from[slot];
        }
    });
}

// The cosine matrices' mirror symmetry, F[k][n-1-j] = (-1)^k F[k][j] and likewise I's rows,
// halves the multiply-adds (the "partial butterfly" of video codecs' integer DCTs): a forward
// output of even k is a sum over the h = n/2 mirrored sums x_j + x_{n-1-j}, one of odd k over
// the differences, and the middle point of an odd line adds to the even outputs only (F[k][mid]
// is zero for odd k). One call gives a line's forward outputs 2m and 2m + 1 for the kDirectPairs
// m from m0 (even and odd: the length's E and O from column m0; the table's padding gives zeros
// past n), its points `pitch` apart from x.
template <typename Real>
ARDENT_HD __forceinline__ void forward_pairs(const Real* x, int pitch, int n, const Real* even,
                                             const Real* odd, Real (&se)[kDirectPairs],
                                             Real (&so)[kDirectPairs]) {
    constexpr int P = kDirectPairs;
    const int h = n / 2, w = direct_width(n);
#pragma unroll
    for (int r = 0; r < P; ++r)
        se[r] = so[r] = Real(0);
#pragma unroll 2
    for (int j = 0; j < h; ++j) {
        const Real a = x[j * pitch], c = x[(n - 1 - j) * pitch];
        const Real sum = a + c, diff = a - c;
        Real fe[P], fo[P];
        read_pairs(even + j * w, fe);
        read_pairs(odd + j * w, fo);
#pragma unroll
        for (int r = 0; r < P; ++r) {
            se[r] += sum * fe[r];
            so[r] += diff * fo[r];
        }
    }
    if (n & 1) {
        const Real mid = x[h * pitch];
        Real fe[P];
        read_pairs(even + h * w, fe);
#pragma unroll
        for (int r = 0; r < P; ++r)
            se[r] += mid * fe[r];
    }
}

// Stores forward_pairs' outputs of column m0 to a line's points `pitch` apart from `to`.
template <typename Real>
ARDENT_HD __forceinline__ void store_pairs(Real* to, int pitch, int n, int m0,
                                           const Real (&se)[kDirectPairs],
                                           const Real (&so)[kDirectPairs]) {
#pragma unroll
    for (int r = 0; r < kDirectPairs; ++r) {
        const int k = 2 * (m0 + r);
        if (k < n) to[k * pitch] = se[r];
        if (k + 1 < n) to[(k + 1) * pitch] = so[r];
    }
}

// The inverse: y_j = E_j + O_j and y_{n-1-j} = E_j - O_j, with E_j (O_j) the sum of row j's
// terms of even (odd) k, for the first (n + 1) / 2 rows (O is zero on an odd line's middle row).
// One call gives E and O of the kDirectPairs consecutive rows from the one `col` points to (the
// transposed inverse T at column j0), whose entries of one k lie side by side.
template <typename Real>
ARDENT_HD __forceinline__ void inverse_rows(const Real* x, int pitch, int n, const Real* col,
                                            Real (&e)[kDirectPairs], Real (&od)[kDirectPairs]) {
    constexpr int P = kDirectPairs;
    const int w = direct_width(n);
#pragma unroll
    for (int r = 0; r < P; ++r)
        e[r] = od[r] = Real(0);
    int k = 0;
#pragma unroll 2
    for (; k + 1 < n; k += 2) {
        const Real xe = x[k * pitch], xo = x[(k + 1) * pitch];
        Real fe[P], fo[P];
        read_pairs(col + k * w, fe);
        read_pairs(col + (k + 1) * w, fo);
#pragma unroll
        for (int r = 0; r < P; ++r) {
            e[r] += xe * fe[r];
            od[r] += xo * fo[r];
        }
    }
    if (k < n) {
        const Real xe = x[k * pitch];
        Real fe[P];
        read_pairs(col + k * w, fe);
#pragma unroll
        for (int r = 0; r < P; ++r)
            e[r] += xe * fe[r];
    }
}

// Stores inverse_rows' rows from j0 (and their mirrors) to a line's points `pitch` apart.
template <typename Real>
ARDENT_HD __forceinline__ void store_rows(Real* to, int pitch, int n, int j0,
                                          const Real (&e)[kDirectPairs],
                                          const Real (&od)[kDirectPairs]) {
#pragma unroll
    for (int r = 0; r < kDirectPairs; ++r) {
        const int j = j0 + r;
        if (j >= (n + 1) / 2) continue;
        to[j * pitch] = e[r] + od[r];
        if (n - 1 - j != j) to[(n - 1 - j) * pitch] = e[r] - od[r];
    }
}

// A tile's forward transforms: a warp's lanes take the same outputs of 32 consecutive lines, so
// their shared reads are consecutive and their matrix reads one 16-byte entry, broadcast; a
// thread keeps kDirectPairs even and as many odd outputs.
#pragma nv_exec_check_disable
template <typename Real, typename Block>
ARDENT_HD __forceinline__ void direct_forward_apply(Block& b, const DirectTile<Real>& t,
                                                    const Real* from, Real* to) {
    constexpr int P = kDirectPairs;
    b.phase([&](int tid, DirectRegs&) {
        const int n = t.n, w = direct_width(n), mask = (1 << t.log2_lines) - 1;
        const int items = (w / P) << t.log2_lines;
        for (int o = tid; o < items; o += dct_threads<Real>()) {
            const int i = o & mask, m0 = (o >> t.log2_lines) * P;
            if (t.first + i >= t.ls.count) continue;
            Real se[P], so[P];
            forward_pairs(from + i, t.pitch, n, t.even + m0, t.odd + m0, se, so);
            store_pairs(to + i, t.pitch, n, m0, se, so);
        }
    });
}

// A tile's inverse transforms: a thread takes kDirectPairs consecutive rows of a line.
#pragma nv_exec_check_disable
template <typename Real, typename Block>
ARDENT_HD __forceinline__ void direct_inverse_apply(Block& b, const DirectTile<Real>& t,
                                                    const Real* from, Real* to) {
    constexpr int P = kDirectPairs;
    b.phase([&](int tid, DirectRegs&) {
        const int n = t.n, w = direct_width(n);
        const int mask = (1 << t.log2_lines) - 1, items = (w / P) << t.log2_lines;
        for (int o = tid; o < items; o += dct_threads<Real>()) {
            const int i = o & mask, j0 = (o >> t.log2_lines) * P;
            if (t.first + i >= t.ls.count) continue;
            Real e[P], od[P];
            inverse_rows(from + i, t.pitch, n, t.inverse + j0, e, od);
            store_rows(to + i, t.pitch, n, j0, e, od);
        }
    });
}

// Forward DCT (REDFT10) of the tile's lines of `data` (the group's cells), in place.
#pragma nv_exec_check_disable
template <typename Real, typename Block>
ARDENT_HD __forceinline__ void direct_forward_tile(Block& b, const DirectTile<Real>& t,
                                                   Real* data) {
    direct_load<Real>(b, t, data, nullptr);
    direct_forward_apply<Real>(b, t, t.a, t.b);
    direct_store<Real>(b, t, t.b, data);
}

// Inverse DCT (REDFT01, unnormalised) of the tile's lines from `in` to `out` (which may be `in`);
// with `clear` (`in`, not `out`), the lines of `in` are left zero.
#pragma nv_exec_check_disable
template <typename Real, typename Block>
ARDENT_HD __forceinline__ void direct_inverse_tile(Block& b, const DirectTile<Real>& t,
                                                   const Real* in, Real* out, Real* clear) {
    direct_load<Real>(b, t, in, clear);
    direct_inverse_apply<Real>(b, t, t.a, t.b);
    direct_store<Real>(b, t, t.b, out);
}

// The z axis (z_modes_tile's contract): forward DCT of the forcing, the mode update on every
// bin, the inverse DCT of the filtered modes, in place in `data`.
#pragma nv_exec_check_disable
template <typename Real, typename Block>
ARDENT_HD __forceinline__ void direct_z_modes_tile(Block& b, const DirectTile<Real>& t, Real* data,
                                                   const ModeArrays<Real>& m, bool init) {
    const auto coef = t.ls.coefs();
    const Real init_scale = static_cast<Real>(1.0 / (8.0 * static_cast<double>(coef.cells())));
    direct_load<Real>(b, t, data, nullptr);
    direct_forward_apply<Real>(b, t, t.a, t.b);
    b.phase([&](int tid, DirectRegs&) {
        constexpr int B = kModeBatch, T = dct_threads<Real>();
        const int total = t.n << t.log2_lines;
        const DirectLine line = direct_line(t, tid);  // a z line: its coefficients in a row too
        const int coef_base = line.base >= 0 ? coef(line.base) : 0;
        for (int e0 = tid; e0 < total; e0 += B * T) {
            int g[B], c[B], slot[B];
#pragma unroll
            for (int j = 0; j < B; ++j) {
                slot[j] = 0;
                g[j] = e0 + j * T < total ? direct_element(t, line, e0 + j * T, slot[j]) : -1;
                c[j] = g[j] >= 0 ? coef_base + (g[j] - line.base) : 0;
            }
            advance_modes(m, g, c, t.b, slot, init, init_scale);
        }
    });
    direct_inverse_apply<Real>(b, t, t.b, t.a);
    direct_store<Real>(b, t, t.a, data);
}

}  // namespace ardent::ard::cuda
