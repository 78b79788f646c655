// pressure_plane() for both CUDA backends: the plane's storage indices live on the GPU (uploaded
// again only when another plane is asked for), one gather kernel copies the plane's values into a
// small device buffer and one copy brings that back, so a live view never moves the whole field.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "cuda_check.h"
#include "device_array.h"

namespace ardent::ard::cuda {

// out[i] = field[cells[i]], zero where cells[i] < 0 (the host writes NaN there).
template <typename Real>
__global__ void gather_plane(const Real* __restrict__ field, const long long* __restrict__ cells,
                             long long n, Real* __restrict__ out) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const long long c = cells[i];
    out[i] = c < 0 ? Real(0) : field[c];
}

template <typename Real>
class PlaneGather {
  public:
    // `cells` and `rebuilt` as Solver::plane_cells() gave them; `field` is the current pressure on
    // the device, read after the work already queued on `stream`.
    void read(const std::vector<int64_t>& cells, bool rebuilt, const Real* field,
              cudaStream_t stream, std::vector<float>& out) {
        const size_t n = cells.size();
        if (rebuilt || cells_.size() != n) {
            // Not counted in memory_bytes(): a plane is a few hundred kB at most.
            size_t ignored = 0;
            cells_.upload(std::vector<long long>(cells.begin(), cells.end()), ignored);
            values_.allocate(n, ignored);
            host_.resize(n);
        }
        constexpr int kThreads = 256;
        const auto count = static_cast<long long>(n);
        gather_plane<Real><<<blocks_for(count, kThreads), kThreads, 0, stream>>>(
            field, cells_.get(), count, values_.get());
        ARDENT_CUDA_CHECK(cudaGetLastError());
        ARDENT_CUDA_CHECK(cudaMemcpyAsync(host_.data(), values_.get(), n * sizeof(Real),
                                          cudaMemcpyDeviceToHost, stream));
        ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream));
        out.resize(n);
        for (size_t k = 0; k < n; ++k)
            out[k] = cells[k] < 0 ? std::numeric_limits<float>::quiet_NaN()
                                  : static_cast<float>(host_[k]);
    }

  private:
    DeviceArray<long long> cells_;
    DeviceArray<Real> values_;
    std::vector<Real> host_;
};

}  // namespace ardent::ard::cuda
