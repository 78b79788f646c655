// The CUDA ARD backend's shared-memory DCT kernels (solvers/src/cuda/dct_kernels.cuh) against a
// direct 3-D REDFT10 on the host, for line lengths 1 to 1024 on every axis and several shape
// groups in one launch: the modes the z kernel stores are the transform scaled by 1/(8 cells),
// and forward, mode initialisation and inverse give the field back. Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "dct_kernels.cuh"

namespace ardent::ard::cuda {
namespace {

#define CHECK_CUDA(x) ASSERT_EQ((x), cudaSuccess) << #x

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

template <typename Real>
void check_shapes(const std::vector<GroupShape>& shapes, double tol) {
    using C = typename Cplx<Real>::type;
    std::vector<DctGroup> groups;
    DctPlan plan;
    long long cells = 0, coefs = 0;
    for (const GroupShape& s : shapes) {
        add_dct_group<Real>(s, cells, coefs, groups, plan);
        cells += s.count * s.nx * s.ny * s.nz;
        coefs += static_cast<long long>(s.nx) * s.ny * s.nz;
    }
    const unsigned* blocks = plan.blocks;
    const size_t* shared = plan.shared;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<Real> field(cells);
    for (auto& f : field)
        f = static_cast<Real>(u(rng));
    std::vector<C> roots(kRootBase);
    for (int j = 0; j < kRootBase; ++j) {
        const double t = -2.0 * 3.14159265358979323846 * j / kRootBase;
        roots[j] = {static_cast<Real>(std::cos(t)), static_cast<Real>(std::sin(t))};
    }
    const std::vector<Real> ones(coefs, Real(1));

    Real *d_field, *d_out, *d_cur, *d_old, *d_one;
    C* d_roots;
    DctGroup* d_groups;
    int32_t* d_bg[3];
    for (int a = 0; a < 3; ++a) {
        CHECK_CUDA(cudaMalloc(&d_bg[a], plan.block_group[a].size() * sizeof(int32_t)));
        CHECK_CUDA(cudaMemcpy(d_bg[a], plan.block_group[a].data(),
                              plan.block_group[a].size() * sizeof(int32_t),
                              cudaMemcpyHostToDevice));
    }
    const size_t bytes = cells * sizeof(Real);
    CHECK_CUDA(cudaMalloc(&d_field, bytes));
    CHECK_CUDA(cudaMalloc(&d_out, bytes));
    CHECK_CUDA(cudaMalloc(&d_cur, bytes));
    CHECK_CUDA(cudaMalloc(&d_old, bytes));
    CHECK_CUDA(cudaMalloc(&d_one, coefs * sizeof(Real)));
    CHECK_CUDA(cudaMalloc(&d_roots, kRootBase * sizeof(C)));
    CHECK_CUDA(cudaMalloc(&d_groups, groups.size() * sizeof(DctGroup)));
    CHECK_CUDA(cudaMemcpy(d_field, field.data(), bytes, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_one, ones.data(), coefs * sizeof(Real), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_roots, roots.data(), kRootBase * sizeof(C), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_groups, groups.data(), groups.size() * sizeof(DctGroup),
                          cudaMemcpyHostToDevice));
    for (int a = 0; a < 2; ++a)
        dct_forward<Real><<<blocks[a], kDctThreads, plan.shared_forward[a]>>>(d_groups, d_bg[a], a,
                                                                              d_roots, d_field);
    const ModeArrays<Real> m{d_cur, d_old, d_one, d_one, d_one};
    dct_z_modes<Real>
        <<<blocks[2], kDctThreads, shared[2]>>>(d_groups, d_bg[2], d_roots, d_field, m, true);
    dct_inverse<Real>
        <<<blocks[1], kDctThreads, shared[1]>>>(d_groups, d_bg[1], 1, d_roots, d_field, d_field);
    dct_inverse<Real>
        <<<blocks[0], kDctThreads, shared[0]>>>(d_groups, d_bg[0], 0, d_roots, d_field, d_out);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<Real> modes(cells), back(cells);
    CHECK_CUDA(cudaMemcpy(modes.data(), d_cur, bytes, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(back.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    for (void* p : {static_cast<void*>(d_field), static_cast<void*>(d_out),
                    static_cast<void*>(d_cur), static_cast<void*>(d_old), static_cast<void*>(d_one),
                    static_cast<void*>(d_roots), static_cast<void*>(d_groups)})
        cudaFree(p);

    for (const DctGroup& g : groups) {
        const GroupShape& s = g.shape;
        const int n[3] = {s.nx, s.ny, s.nz};
        const long long gc = s.count * s.nx * s.ny * s.nz, pc = gc / s.count;
        std::vector<double> ref(field.begin() + g.offset, field.begin() + g.offset + gc);
        for (int a = 0; a < 3; ++a)
            host_dct_axis(ref, n, static_cast<int>(s.count), a);
        double err = 0, peak = 0, rt = 0;
        for (long long i = 0; i < gc; ++i) {
            const double want = ref[i] / (8.0 * static_cast<double>(pc));
            err = std::max(err, std::abs(modes[g.offset + i] - want));
            peak = std::max(peak, std::abs(want));
            rt = std::max(rt, std::abs(static_cast<double>(back[g.offset + i]) -
                                       static_cast<double>(field[g.offset + i])));
        }
        const std::string name = std::to_string(s.nx) + "x" + std::to_string(s.ny) + "x" +
                                 std::to_string(s.nz) + " x" + std::to_string(s.count);
        EXPECT_LT(err / peak, tol) << name << ": modes vs direct DCT";
        EXPECT_LT(rt, tol * 4) << name << ": forward + inverse round trip";
    }
}

const std::vector<GroupShape> kShapes = {
    {1, 1, 1, 3},   {2, 1, 1, 2},    {1, 2, 1, 2},    {1, 1, 2, 2},    {4, 8, 2, 3},
    {16, 1, 32, 2}, {64, 32, 4, 2},  {8, 16, 64, 1},  {32, 32, 32, 2}, {128, 4, 2, 1},
    {2, 128, 8, 1}, {4, 2, 256, 1},  {1024, 2, 1, 1}, {2, 1024, 1, 1}, {1, 4, 1024, 1},
    {512, 1, 2, 1}, {16, 512, 1, 1},
};

TEST(DctKernels, Float32MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<float>(kShapes, 2e-6 * 16);
}

TEST(DctKernels, Float64MatchesDirectDct) {
    std::string why;
    if (!have_gpu(why)) GTEST_SKIP() << why;
    check_shapes<double>(kShapes, 1e-12);
}

}  // namespace
}  // namespace ardent::ard::cuda
