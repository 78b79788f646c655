// The CUDA ARD backend's DCT kernels (solvers/src/cuda/dct_kernels.cuh) against a direct 3-D
// REDFT10 on the host, for line lengths 1 to 1024 on every axis and several shape groups in one
// launch: the modes the z kernel stores are the transform scaled by 1/(8 cells), and forward, mode
// initialisation and inverse give the field back. The direct class's lengths (2^a 3^b 5^c up to
// 64, not powers of two) are covered on every axis, alone and beside power-of-two axes of the same
// group, and a mode update with per-mode coefficients checks which coefficient each mode takes.
// The GPU tests skip without a GPU; the host emulation of the same tiles runs everywhere.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "dct_kernels.cuh"

namespace ardent::ard::cuda {
namespace {

bool have_gpu(std::string& why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0) return true;
    why = e != cudaSuccess ? std::string("no usable CUDA device: ") + cudaGetErrorString(e)
                           : "no CUDA device is present";
    return false;
}

// Direct REDFT10 along one axis of a [p][z][y][x] block of shape n, in double.
void host_dct_axis(std::vector<double>& v, const int n[3], int count, int axis) {
    const double pi = 3.14159265358979323846;
    const long long cells = static_cast<long long>(n[0]) * n[1] * n[2];
    const long long stride = axis == 0 ? 1 : axis == 1 ? n[0] : static_cast<long long>(n[0]) * n[1];
    const int N = n[axis];
    std::vector<double> line(N), out(N);
    for (int p = 0; p < count; ++p)
        for (long long c = 0; c < cells; ++c) {
            const long long pos = (c / stride) % N;
            if (pos != 0) continue;  // c is the first element of a line
            const long long base = p * cells + c;
            for (int i = 0; i < N; ++i)
                line[i] = v[base + i * stride];
            for (int k = 0; k < N; ++k) {
                double s = 0;
                for (int i = 0; i < N; ++i)
                    s += line[i] * std::cos(pi * k * (2 * i + 1) / (2.0 * N));
                out[k] = 2 * s;
            }
            for (int i = 0; i < N; ++i)
                v[base + i * stride] = out[i];
        }
}

// The forward DCT (x, y), the z kernel's mode initialisation and the inverse DCT (y, x) of a
// random field over every group of `shapes`, on the GPU or in the host emulation of the same
// tiles; returns the modes and the field that comes back. With `ramp`, the z kernel instead
// advances modes from zero with b = ramp(coefficient index) and a = phi = 1: the new level, which
// `modes` then holds, is the unscaled transform times ramp(mode index mod cells).
template <typename Real>
struct DctRun {
    std::vector<DctGroup> groups;
    std::vector<Real> field, modes, back;
    double left = 0;  // largest value the last pass left in its input (it clears it)
};

double ramp(long long coef) {
    return 1 + static_cast<double>(coef % 5);
}

// `compact`, `plane`: the plan's compact_bytes and plane_bytes (0: every group in the line
// classes); `chain`: the plane groups' z pass in a plan of its own (add_dct_group's plane_z, as
// the CUDA backend's plane chain runs it).
template <typename Real>
DctRun<Real> run_shapes(const std::vector<GroupShape>& shapes, bool device, bool with_ramp = false,
                        size_t compact = 0, size_t plane = 0, size_t slab = kPlaneSlabBytes,
                        bool chain = false) {
    using C = typename Cplx<Real>::type;
    DctRun<Real> out;
    DctPlan plan, plane_z;
    plan.compact_bytes = compact;
    plan.plane_bytes = plane;
    plan.plane_slab_bytes = slab;
    long long cells = 0, coefs = 0;
    for (const GroupShape& s : shapes) {
        add_dct_group<Real>(s, cells, coefs, out.groups, plan, chain ? &plane_z : nullptr);
        cells += s.count * s.nx * s.ny * s.nz;
        coefs += static_cast<long long>(s.nx) * s.ny * s.nz;
    }
    sort_dct_blocks(out.groups, plan);
    sort_dct_blocks(out.groups, plane_z);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    out.field.resize(cells);
    for (auto& f : out.field)
        f = static_cast<Real>(u(rng));
    const std::vector<C> roots = dct_twiddles<C>();
    const std::vector<Real> direct = direct_matrices<Real>();
    const std::vector<Real> ones(coefs, Real(1));
    std::vector<Real> b = ones;
    if (with_ramp)
        for (long long c = 0; c < coefs; ++c)
            b[c] = static_cast<Real>(ramp(c));
    const bool init = !with_ramp;
    out.modes.assign(cells, Real(0));
    out.back.assign(cells, Real(0));

    if (!device) {
        std::vector<Real> work = out.field, cur(cells, Real(0)), old(cells, Real(0));
        const ModeArrays<Real> m{cur.data(), old.data(), ones.data(), b.data(), ones.data()};
        emulate_dct_compact<Real>(plan, out.groups, direct.data(), work.data(), out.back.data(), m,
                                  init);
        emulate_dct_plane<Real>(plan, out.groups, false, roots.data(), work.data(), work.data());
        emulate_dct_z_modes<Real>(plane_z, out.groups, roots.data(), direct.data(), work.data(), m,
                                  init);
        for (int a = 0; a < 2; ++a)
            emulate_dct_forward<Real>(plan, out.groups, a, roots.data(), direct.data(),
                                      work.data());
        emulate_dct_z_modes<Real>(plan, out.groups, roots.data(), direct.data(), work.data(), m,
                                  init);
        emulate_dct_inverse<Real>(plan, out.groups, 1, roots.data(), direct.data(), work.data(),
                                  work.data());
        emulate_dct_inverse<Real>(plan, out.groups, 0, roots.data(), direct.data(), work.data(),
                                  out.back.data(), work.data());
        emulate_dct_plane<Real>(plan, out.groups, true, roots.data(), work.data(), out.back.data(),
                                work.data());
        for (Real v : work)
            out.left = std::max(out.left, std::abs(static_cast<double>(v)));
        out.modes = with_ramp ? old : cur;
        return out;
    }

    Real *d_field, *d_out, *d_cur, *d_old, *d_one, *d_b, *d_direct;
    C* d_roots;
    DctGroup* d_groups;
    std::vector<int32_t*> d_bg;
    // A block-to-group list on the device (freed at the end).
    auto upload = [&](const std::vector<int32_t>& list) {
        int32_t* p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, std::max<size_t>(list.size(), 1) * sizeof(int32_t)), cudaSuccess);
        if (!list.empty())
            EXPECT_EQ(
                cudaMemcpy(p, list.data(), list.size() * sizeof(int32_t), cudaMemcpyHostToDevice),
                cudaSuccess);
        d_bg.push_back(p);
        return static_cast<const int32_t*>(p);
    };
    DctDevice<Real> dev{};
    for (int c = 0; c < kDctClasses; ++c)
        for (int a = 0; a < 3; ++a)
            dev.block_group[c][a] = upload(plan.block_group[c][a]);
    dev.compact_group = upload(plan.compact_group);
    dev.compact_warp_group = upload(plan.compact_warp_group);
    for (int l = 0; l < kPlaneLaunches; ++l)
        dev.plane_group[l] = upload(plan.plane_group[l]);
    const size_t bytes = cells * sizeof(Real);
    EXPECT_EQ(cudaMalloc(&d_field, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_out, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_cur, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_old, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_one, coefs * sizeof(Real)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_b, coefs * sizeof(Real)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_direct, kDirectTable * sizeof(Real)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_roots, kTwiddles * sizeof(C)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d_groups, out.groups.size() * sizeof(DctGroup)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d_field, out.field.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(d_cur, 0, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(d_old, 0, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d_one, ones.data(), coefs * sizeof(Real), cudaMemcpyHostToDevice),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d_b, b.data(), coefs * sizeof(Real), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(d_direct, direct.data(), kDirectTable * sizeof(Real), cudaMemcpyHostToDevice),
        cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d_roots, roots.data(), kTwiddles * sizeof(C), cudaMemcpyHostToDevice),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d_groups, out.groups.data(), out.groups.size() * sizeof(DctGroup),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    dev.groups = d_groups;
    dev.roots = d_roots;
    dev.direct = d_direct;
    DctDevice<Real> dev_z = dev;  // the plane groups' z pass: its own block lists
    for (int c = 0; c < kDctClasses; ++c)
        dev_z.block_group[c][2] = upload(plane_z.block_group[c][2]);
    EXPECT_EQ(configure_dct_kernels<Real>(plan, &plane_z), cudaSuccess);
    const ModeArrays<Real> m{d_cur, d_old, d_one, d_b, d_one};
    launch_dct_compact<Real>(plan, dev, d_field, d_out, m, init, nullptr);
    launch_dct_plane<Real>(plan, dev, false, d_field, d_field, nullptr, nullptr);
    launch_dct_z_modes<Real>(plane_z, dev_z, d_field, m, init, nullptr);
    for (int a = 0; a < 2; ++a)
        launch_dct_forward<Real>(plan, dev, a, d_field, nullptr);
    launch_dct_z_modes<Real>(plan, dev, d_field, m, init, nullptr);
    launch_dct_inverse<Real>(plan, dev, 1, d_field, d_field, nullptr, nullptr);
    launch_dct_inverse<Real>(plan, dev, 0, d_field, d_out, d_field, nullptr);
    launch_dct_plane<Real>(plan, dev, true, d_field, d_out, d_field, nullptr);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(out.modes.data(), with_ramp ? d_old : d_cur, bytes, cudaMemcpyDeviceToHost),
        cudaSuccess);
    EXPECT_EQ(cudaMemcpy(out.back.data(), d_out, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    std::vector<Real> work(cells);
    EXPECT_EQ(cudaMemcpy(work.data(), d_field, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    for (Real v : work)
        out.left = std::max(out.left, std::abs(static_cast<double>(v)));
    for (void* p :
         {static_cast<void*>(d_field), static_cast<void*>(d_out), static_cast<void*>(d_cur),
          static_cast<void*>(d_old), static_cast<void*>(d_one), static_cast<void*>(d_b),
          static_cast<void*>(d_direct), static_cast<void*>(d_roots), static_cast<void*>(d_groups)})
        cudaFree(p);
    for (int32_t* p : d_bg)
        cudaFree(p);
    return out;
}

// The modes against a direct DCT scaled by 1/(8 cells), and the round trip against the field;
// with `with_ramp`, the new mode level against the direct DCT times ramp(mode index mod cells).
template <typename Real>
void check_shapes(const std::vector<GroupShape>& shapes, double tol, bool device,
                  bool with_ramp = false, size_t compact = 0, size_t plane = 0,
                  size_t slab = kPlaneSlabBytes, bool chain = false) {
    const DctRun<Real> r = run_shapes<Real>(shapes, device, with_ramp, compact, plane, slab, chain);
    EXPECT_EQ(r.left, 0.0) << "the last inverse pass leaves its input zero";
    for (const DctGroup& g : r.groups) {
        const GroupShape& s = g.shape;
        const int n[3] = {s.nx, s.ny, s.nz};
        const long long gc = s.count * s.nx * s.ny * s.nz, pc = gc / s.count;
        std::vector<double> ref(r.field.begin() + g.offset, r.field.begin() + g.offset + gc);
        for (int a = 0; a < 3; ++a)
            host_dct_axis(ref, n, static_cast<int>(s.count), a);
        double err = 0, peak = 0, rt = 0;
        for (long long i = 0; i < gc; ++i) {
            const double want = with_ramp ? ref[i] * ramp(g.coef + i % pc)
                                          : ref[i] / (8.0 * static_cast<double>(pc));
            err = std::max(err, std::abs(r.modes[g.offset + i] - want));
            peak = std::max(peak, std::abs(want));
            rt = std::max(rt, std::abs(static_cast<double>(r.back[g.offset + i]) -
                                       static_cast<double>(r.field[g.offset + i])));
        }
        const std::string name = std::to_string(s.nx) + "x" + std::to_string(s.ny) + "x" +
                                 std::to_string(s.nz) + " x" + std::to_string(s.count);
        EXPECT_LT(err / peak, tol) << name << ": modes vs direct DCT";
        if (!with_ramp) EXPECT_LT(rt, tol * 4) << name << ": forward + inverse round trip";
    }
}

// Power-of-two groups, then groups with direct sides (every direct length, on every axis, with
// power-of-two sides beside them, which take each class's mixed-group kernels), all in one launch.
const std::vector<GroupShape> kShapes = {
    {1, 1, 1, 3},   {2, 1, 1, 2},    {1, 2, 1, 2},    {1, 1, 2, 2},    {4, 8, 2, 3},
    {16, 1, 32, 2}, {64, 32, 4, 2},  {8, 16, 64, 1},  {32, 32, 32, 2}, {128, 4, 2, 1},
    {2, 128, 8, 1}, {4, 2, 256, 1},  {1024, 2, 1, 1}, {2, 1024, 1, 1}, {1, 4, 1024, 1},
    {512, 1, 2, 1}, {16, 512, 1, 1}, {3, 1, 1, 3},    {1, 5, 1, 2},    {1, 1, 6, 2},
    {12, 16, 8, 2}, {3, 5, 6, 3},    {64, 48, 2, 1},  {1, 9, 10, 2},   {60, 4, 27, 1},
    {25, 18, 1, 3}, {16, 15, 45, 1}, {54, 50, 1, 1},  {20, 1, 36, 2},  {24, 40, 30, 1},
    {2, 12, 20, 2}, {48, 1, 3, 2},   {8, 25, 64, 1},  {9, 24, 4, 1},   {15, 2, 60, 1},
    {256, 3, 2, 1}, {6, 512, 1, 1},  {5, 1, 1024, 1}, {1024, 3, 1, 1}, {2, 4, 16, 2},
    {4, 2, 128, 2}, {5, 2, 32, 1},   {3, 4, 128, 1},
};

// Direct and mixed groups and a power-of-two one (indexed by a mask, the others by a modulo).
const std::vector<GroupShape> kRampShapes = {
    {12, 16, 8, 2}, {3, 5, 6, 3}, {64, 48, 2, 2}, {4, 8, 2, 3}, {60, 4, 27, 1}, {8, 2, 36, 2},
};

// Class 0's z pass in its ranges of sides (kZRanges): each launch's blocks are exactly its
// kind's blocks whose z side lies in the launch's range, and together they are all of them.
TEST(DctKernels, ZPassRangesTakeEachBlockOnce) {
    DctPlan plan;
    plan.compact_bytes = 0;
    plan.plane_bytes = 0;
    std::vector<DctGroup> groups;
    for (const GroupShape& s : kShapes)
        add_dct_group<float>(s, 0, 0, groups, plan);
    sort_dct_blocks(groups, plan);
    unsigned taken[kKinds] = {};
    int ranges = 0;
    for (const DctLaunch& l : dct_launches(plan, 2)) {
        if (l.c != 0) continue;
        ASSERT_GE(l.range, 0);
        ++ranges;
        EXPECT_EQ(l.first, taken[l.k]) << "range " << l.range << " kind " << l.k;
        const unsigned kind_first = l.k == kPure ? 0u : plan.blocks[0][2][kPure];
        for (unsigned b = l.first; b < l.first + l.blocks; ++b) {
            const DctGroup& g = groups[static_cast<size_t>(plan.block_group[0][2][kind_first + b])];
            EXPECT_EQ(group_kind(g.shape), l.k);
            EXPECT_GE(g.log2n[2], kZRangeLo[l.range]) << "block " << b;
            EXPECT_LE(g.log2n[2], kZRangeHi[l.range]) << "block " << b;
        }
        taken[l.k] += l.blocks;
    }
    EXPECT_EQ(ranges, 2 * kZRanges) << "kShapes has every range in both kinds";
    for (int k = 0; k < kKinds; ++k)
        EXPECT_EQ(taken[k], plan.blocks[0][2][k]);
    plan.split_z = false;
    int whole = 0;
    for (const DctLaunch& l : dct_launches(plan, 2))
        if (l.c == 0) {
            EXPECT_EQ(l.range, -1);
            EXPECT_EQ(l.blocks, plan.blocks[0][2][l.k]);
            ++whole;
        }
    EXPECT_EQ(whole, kKinds);
}

TEST(DctKernels, Float32MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<float>(kShapes, 2e-6 * 16, true);
}

TEST(DctKernels, Float64MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<double>(kShapes, 1e-12, true);
}

// The same tiles, phase by phase, on the host: the kernels' indexing and arithmetic are checked
// on machines without a GPU (CI), and the GPU runs above check the device's side.
TEST(DctKernels, HostEmulationFloat32MatchesDirectDct) {
    check_shapes<float>(kShapes, 2e-6 * 16, false);
}

TEST(DctKernels, HostEmulationFloat64MatchesDirectDct) {
    check_shapes<double>(kShapes, 1e-12, false);
}

// Each mode takes the coefficient of its index modulo the partition's cells, in every class.
TEST(DctKernels, HostEmulationModesTakeTheirCoefficients) {
    check_shapes<double>(kRampShapes, 1e-12, false, true);
}

TEST(DctKernels, ModesTakeTheirCoefficients) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<double>(kRampShapes, 1e-12, true, true);
}

// The GPU and the host emulation run the same arithmetic; the float64 results agree closely
// (FMA contraction may differ).
// The compact class (dct_compact.cuh): with the largest limit, which takes every group whose
// sides all have matrices and whose partition fits 48 KB (float) or 24 KB (double), the power-of-
// two groups among them, the same checks (the smallest take a warp each, the others a block); the
// other groups stay in the line classes, in the same launches.
constexpr size_t kAllCompact = kMaxCompactBytes;

TEST(DctKernels, HostEmulationCompactFloat32MatchesDirectDct) {
    DctPlan plan;
    plan.compact_bytes = kAllCompact;
    std::vector<DctGroup> groups;
    for (const GroupShape& s : kShapes)
        add_dct_group<float>(s, 0, 0, groups, plan);
    size_t compact = 0, warp = 0;  // groups of a block and of a warp per partition
    for (size_t i = 0; i < plan.compact_group.size(); ++i)
        compact += i == 0 || plan.compact_group[i] != plan.compact_group[i - 1];
    for (size_t i = 0; i < plan.compact_warp_group.size(); ++i)
        warp += i == 0 || plan.compact_warp_group[i] != plan.compact_warp_group[i - 1];
    EXPECT_GT(warp, 10u);
    EXPECT_GT(compact, 5u);
    compact += warp;
    EXPECT_GT(groups.size() - compact, 5u) << "groups with a side over 64 stay in the classes";
    check_shapes<float>(kShapes, 2e-6 * 16, false, false, kAllCompact);
}

TEST(DctKernels, HostEmulationCompactFloat64MatchesDirectDct) {
    check_shapes<double>(kShapes, 1e-12, false, false, kAllCompact);
}

TEST(DctKernels, HostEmulationCompactModesTakeTheirCoefficients) {
    check_shapes<double>(kRampShapes, 1e-12, false, true, kAllCompact);
}

TEST(DctKernels, CompactFloat32MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<float>(kShapes, 2e-6 * 16, true, false, kAllCompact);
}

TEST(DctKernels, CompactFloat64MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<double>(kShapes, 1e-12, true, false, kAllCompact);
}

TEST(DctKernels, CompactModesTakeTheirCoefficients) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<double>(kRampShapes, 1e-12, true, true, kAllCompact);
}

TEST(DctKernels, CompactDeviceMatchesHostEmulation) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    const DctRun<double> d = run_shapes<double>(kShapes, true, false, kAllCompact),
                         h = run_shapes<double>(kShapes, false, false, kAllCompact);
    double err = 0;
    for (size_t i = 0; i < d.modes.size(); ++i)
        err = std::max(err, std::abs(d.modes[i] - h.modes[i]));
    EXPECT_LT(err, 1e-13);
}

TEST(DctKernels, DeviceMatchesHostEmulation) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    const DctRun<double> d = run_shapes<double>(kShapes, true),
                         h = run_shapes<double>(kShapes, false);
    double err = 0;
    for (size_t i = 0; i < d.modes.size(); ++i)
        err = std::max(err, std::abs(d.modes[i] - h.modes[i]));
    EXPECT_LT(err, 1e-13);
}

// The plane class (dct_plane.cuh): every group of kShapes whose xy plane fits takes it for x and y
// (the others stay in the line classes, in the same run), and groups drawn for its edges: slabs
// of many planes with a short last one, slabs across partitions, one-plane slabs of either launch,
// direct z sides (their z pass in the direct class), lines of one point.
const std::vector<GroupShape> kPlaneShapes = {
    {128, 128, 3, 1}, {128, 64, 5, 1}, {32, 32, 9, 3},  {16, 8, 9, 2},  {1, 1, 40, 1},
    {2, 128, 3, 1},   {128, 1, 6, 2},  {64, 64, 12, 1}, {8, 16, 45, 1}, {4, 32, 1, 5},
};

std::vector<GroupShape> with_planes() {
    std::vector<GroupShape> s = kShapes;
    s.insert(s.end(), kPlaneShapes.begin(), kPlaneShapes.end());
    return s;
}

// How many groups of a plan take each plane launch.
template <typename Real>
std::vector<size_t> plane_groups(const std::vector<GroupShape>& shapes, size_t plane, size_t slab) {
    DctPlan plan;
    plan.compact_bytes = 0;
    plan.plane_bytes = plane;
    plan.plane_slab_bytes = slab;
    std::vector<DctGroup> groups;
    for (const GroupShape& s : shapes)
        add_dct_group<Real>(s, 0, 0, groups, plan);
    std::vector<size_t> n(kPlaneLaunches, 0);
    for (const DctGroup& g : groups)
        if (g.plane_slab > 0) ++n[static_cast<size_t>(g.plane_launch)];
    return n;
}

TEST(DctKernels, HostEmulationPlaneFloat32MatchesDirectDct) {
    const std::vector<size_t> n = plane_groups<float>(with_planes(), kPlaneBytes, kPlaneSlabBytes);
    EXPECT_GT(n[0], 10u) << "one tile an axis: one sub-block";
    EXPECT_EQ(n[1], 1u) << "the 128 x 64 group: two tiles an axis";
    EXPECT_EQ(n[2], 1u) << "the 128 x 128 group: four tiles an axis";
    check_shapes<float>(with_planes(), 2e-6 * 16, false, false, 0, kPlaneBytes);
}

TEST(DctKernels, HostEmulationPlaneFloat64MatchesDirectDct) {
    check_shapes<double>(with_planes(), 1e-12, false, false, 0, kPlaneBytes);
}

// Small slabs: most groups take several blocks, one plane each (float64: the 128 x 128 group's
// eight tiles an axis keep it in the line classes).
TEST(DctKernels, HostEmulationPlaneSmallSlabsMatchDirectDct) {
    const std::vector<size_t> n = plane_groups<double>(with_planes(), kPlaneBytes, 1024);
    EXPECT_GT(n[0] + n[1] + n[2], 15u);
    check_shapes<double>(with_planes(), 1e-12, false, false, 0, kPlaneBytes, 1024);
}

TEST(DctKernels, HostEmulationPlaneModesTakeTheirCoefficients) {
    check_shapes<double>(kRampShapes, 1e-12, false, true, 0, kPlaneBytes);
}

TEST(DctKernels, PlaneFloat32MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<float>(with_planes(), 2e-6 * 16, true, false, 0, kPlaneBytes);
    check_shapes<float>(with_planes(), 2e-6 * 16, true, false, 0, kPlaneBytes, 1024);
}

TEST(DctKernels, PlaneFloat64MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<double>(with_planes(), 1e-12, true, false, 0, kPlaneBytes);
    check_shapes<double>(with_planes(), 1e-12, true, false, 0, 2 * kPlaneBytes, 1024);
}

// The plane chain (add_dct_group's plane_z): the plane groups' z blocks, and nothing else, go to
// the second plan (none of their x or y blocks, none of the other groups'); the main plan keeps
// every other group's z blocks. Both plans' passes together give the same transforms and modes.
TEST(DctKernels, PlaneChainTakesThePlaneGroupsZPass) {
    DctPlan plan, plane_z, alone;
    plan.compact_bytes = plane_z.compact_bytes = alone.compact_bytes = 0;
    std::vector<DctGroup> groups, groups_alone;
    for (const GroupShape& s : with_planes()) {
        add_dct_group<float>(s, 0, 0, groups, plan, &plane_z);
        add_dct_group<float>(s, 0, 0, groups_alone, alone);
    }
    sort_dct_blocks(groups, plan);
    sort_dct_blocks(groups, plane_z);
    unsigned plane_blocks = 0, other_blocks = 0;
    for (int c = 0; c < kDctClasses; ++c) {
        for (int a = 0; a < 2; ++a)
            EXPECT_TRUE(plane_z.block_group[c][a].empty()) << "class " << c << ", axis " << a;
        for (int32_t gi : plane_z.block_group[c][2]) {
            EXPECT_GT(groups[static_cast<size_t>(gi)].plane_slab, 0) << "group " << gi;
            ++plane_blocks;
        }
        for (int32_t gi : plan.block_group[c][2]) {
            EXPECT_EQ(groups[static_cast<size_t>(gi)].plane_slab, 0) << "group " << gi;
            ++other_blocks;
        }
        for (int a = 0; a < 3; ++a)
            for (int k = 0; k < kKinds; ++k)
                EXPECT_EQ(plan.blocks[c][a][k] + plane_z.blocks[c][a][k], alone.blocks[c][a][k]);
    }
    EXPECT_GT(plane_blocks, 10u);
    EXPECT_GT(other_blocks, 10u);
    check_shapes<float>(with_planes(), 2e-6 * 16, false, false, 0, kPlaneBytes, kPlaneSlabBytes,
                        true);
    check_shapes<double>(with_planes(), 1e-12, false, false, 0, kPlaneBytes, 1024, true);
    check_shapes<double>(kRampShapes, 1e-12, false, true, 0, kPlaneBytes, kPlaneSlabBytes, true);
}

TEST(DctKernels, PlaneChainFloat32MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<float>(with_planes(), 2e-6 * 16, true, false, 0, kPlaneBytes, kPlaneSlabBytes,
                        true);
    check_shapes<double>(kRampShapes, 1e-12, true, true, 0, kPlaneBytes, kPlaneSlabBytes, true);
}

// configure_dct_kernels lets every kernel take what its launches ask for, above the 48 KB that
// needs no opt-in too: compact warps of 24 KB (four to a block), the plane launches.
TEST(DctKernels, EveryKernelMayTakeItsSharedMemory) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    DctPlan plan;
    plan.compact_bytes = kAllCompact;
    plan.compact_warp_bytes = 24 * 1024;
    std::vector<DctGroup> groups;
    for (const GroupShape& s : with_planes())
        add_dct_group<float>(s, 0, 0, groups, plan);
    ASSERT_EQ(configure_dct_kernels<float>(plan), cudaSuccess);
    const auto allowed = [](const void* kernel) {
        cudaFuncAttributes a{};
        EXPECT_EQ(cudaFuncGetAttributes(&a, kernel), cudaSuccess);
        return static_cast<size_t>(a.maxDynamicSharedSizeBytes);
    };
    EXPECT_GT(kCompactWarps * plan.compact_warp_shared, size_t{48 * 1024});
    EXPECT_GE(allowed(reinterpret_cast<const void*>(&dct_compact_warp<float>)),
              kCompactWarps * plan.compact_warp_shared);
    EXPECT_GE(allowed(reinterpret_cast<const void*>(&dct_compact<float>)), plan.compact_shared);
    static_for<kZRanges>([&](auto rc) {
        constexpr int r = decltype(rc)::value;
        for (int k = 0; k < kKinds; ++k) {
            const void* kernel =
                k == kPure ? reinterpret_cast<const void*>(&dct_z_modes<float, 0, true, r>)
                           : reinterpret_cast<const void*>(&dct_z_modes<float, 0, false, r>);
            EXPECT_GE(allowed(kernel), plan.shared[0][2][k]) << "z range " << r;
        }
    });
    static_for<kPlaneLaunches>([&](auto lc) {
        constexpr int S = kPlaneSubs[decltype(lc)::value];
        EXPECT_GE(allowed(reinterpret_cast<const void*>(&dct_plane<float, false, S>)),
                  plan.plane_shared[lc]);
        EXPECT_GE(allowed(reinterpret_cast<const void*>(&dct_plane<float, true, S>)),
                  plan.plane_shared[lc]);
    });
}

TEST(DctKernels, PlaneDeviceMatchesHostEmulation) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    const DctRun<double> d = run_shapes<double>(with_planes(), true, false, 0, kPlaneBytes),
                         h = run_shapes<double>(with_planes(), false, false, 0, kPlaneBytes);
    double err = 0;
    for (size_t i = 0; i < d.modes.size(); ++i)
        err = std::max(err, std::abs(d.modes[i] - h.modes[i]));
    EXPECT_LT(err, 1e-13);
}

}  // namespace
}  // namespace ardent::ard::cuda

// The mixed groups' multiply-shift division (FastDiv) equals the hardware's for every divisor a
// partition side or cell count can be, at the numerators where rounding is tightest: each
// multiple of the divisor and its neighbours, up to the group limit 2^31.
TEST(DctKernels, FastDivisionIsExact) {
    std::mt19937_64 rng(31);
    std::vector<unsigned> divisors;
    for (unsigned d = 1; d <= 4096; ++d)
        divisors.push_back(d);
    for (int i = 0; i < 2000; ++i)
        divisors.push_back(1 + static_cast<unsigned>(rng() % ((1U << 31) - 1)));
    long long checked = 0;
    for (const unsigned d : divisors) {
        const ardent::ard::cuda::FastDiv f(d);
        const unsigned top = (1U << 31) - 1;
        std::vector<unsigned> us = {0, 1, d - 1, d, top, top - 1, top - top % d, top - top % d - 1};
        for (int i = 0; i < 64; ++i) {
            const unsigned long long q = rng() % (top / d + 1);
            for (const long long off : {-1LL, 0LL, 1LL}) {
                const long long u = static_cast<long long>(q * d) + off;
                if (u >= 0 && u <= top) us.push_back(static_cast<unsigned>(u));
            }
        }
        for (const unsigned u : us) {
            if (u > top) continue;
            ASSERT_EQ(f.div(u), u / d) << u << " / " << d;
            ASSERT_EQ(f.mod(u), u % d) << u << " % " << d;
            ++checked;
        }
    }
    std::printf("[ measured ] %lld quotients over %zu divisors exact\n", checked, divisors.size());
}
