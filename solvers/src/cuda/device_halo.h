// A distributed CUDA run's halo on the device (ard_distribute.h's HaloPlan, one list of peers):
// the cells each peer reads, gathered into one buffer, and the cells arriving from each peer,
// scattered from another, every peer one range of each. The transports move the buffers between
// them: HostStagedHalo through pinned host memory and MPI, NcclHalo (nccl_halo.h) GPU to GPU.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "ardent/solvers/ard_distribute.h"
#include "ardent/solvers/communicator.h"
#include "cuda_check.h"
#include "device_array.h"
#include "step_kernels.cuh"

namespace ardent::ard::cuda {

template <typename Real>
class DeviceHalo {
  public:
    struct Range {
        int rank;
        size_t send_first, send_count, receive_first, receive_count;
    };

    // `map` turns a layout index into the device's (the PML's depth-major renumbering).
    void build(const std::vector<HaloPlan::Peer>& peers, const std::function<void(int32_t&)>& map,
               size_t& bytes) {
        std::vector<int32_t> out, in;
        for (const HaloPlan::Peer& p : peers) {
            ranges_.push_back({p.rank, out.size(), p.send.size(), in.size(), p.receive.size()});
            for (int32_t c : p.send)
                out.push_back(c), map(out.back());
            for (int32_t c : p.receive)
                in.push_back(c), map(in.back());
        }
        send_cells_.upload(out, bytes);
        receive_cells_.upload(in, bytes);
        send_values_.allocate(out.size(), bytes);
        receive_values_.allocate(in.size(), bytes);
    }

    const std::vector<Range>& ranges() const { return ranges_; }
    size_t send_size() const { return send_cells_.size(); }
    size_t receive_size() const { return receive_cells_.size(); }
    Real* send_values() const { return send_values_.get(); }
    Real* receive_values() const { return receive_values_.get(); }

    // The cells peers read, from `data` into the send buffer.
    void gather(const Real* data, cudaStream_t stream) const {
        const auto n = static_cast<long long>(send_cells_.size());
        if (n > 0)
            gather_values<<<blocks_for(n, 256), 256, 0, stream>>>(send_cells_.get(), n, data,
                                                                  send_values_.get());
    }
    // What arrived, from the receive buffer into this rank's copies in `data`.
    void scatter(Real* data, cudaStream_t stream) const {
        const auto n = static_cast<long long>(receive_cells_.size());
        if (n > 0)
            scatter_values<<<blocks_for(n, 256), 256, 0, stream>>>(receive_cells_.get(), n,
                                                                   receive_values_.get(), data);
    }

  private:
    std::vector<Range> ranges_;
    DeviceArray<int32_t> send_cells_, receive_cells_;
    DeviceArray<Real> send_values_, receive_values_;
};

// Through host memory: the send buffer copied to pinned memory, swapped over the Communicator,
// the received values copied up; the stream is synchronised before the swap.
template <typename Real>
class HostStagedHalo {
  public:
    void build(const std::vector<HaloPlan::Peer>& peers, const std::function<void(int32_t&)>& map,
               size_t& bytes) {
        halo_.build(peers, map, bytes);
        ARDENT_CUDA_CHECK(
            cudaMallocHost(&host_send_, std::max<size_t>(halo_.send_size(), 1) * sizeof(Real)));
        ARDENT_CUDA_CHECK(cudaMallocHost(&host_receive_,
                                         std::max<size_t>(halo_.receive_size(), 1) * sizeof(Real)));
        for (const auto& r : halo_.ranges()) {
            if (r.send_count > 0)
                sends_.push_back({r.rank, host_send_ + r.send_first, r.send_count * sizeof(Real)});
            if (r.receive_count > 0)
                receives_.push_back(
                    {r.rank, host_receive_ + r.receive_first, r.receive_count * sizeof(Real)});
        }
    }
    ~HostStagedHalo() {
        if (host_send_) cudaFreeHost(host_send_);
        if (host_receive_) cudaFreeHost(host_receive_);
    }

    // Waits for the work queued on `stream`, swaps, and queues the scatter.
    void exchange(Communicator& comm, Real* data, cudaStream_t stream) {
        halo_.gather(data, stream);
        if (halo_.send_size() > 0)
            ARDENT_CUDA_CHECK(cudaMemcpyAsync(host_send_, halo_.send_values(),
                                              halo_.send_size() * sizeof(Real),
                                              cudaMemcpyDeviceToHost, stream));
        ARDENT_CUDA_CHECK(cudaStreamSynchronize(stream));
        comm.exchange(sends_, receives_);
        if (halo_.receive_size() > 0)
            ARDENT_CUDA_CHECK(cudaMemcpyAsync(halo_.receive_values(), host_receive_,
                                              halo_.receive_size() * sizeof(Real),
                                              cudaMemcpyHostToDevice, stream));
        halo_.scatter(data, stream);
        ARDENT_CUDA_CHECK(cudaGetLastError());
    }

  private:
    DeviceHalo<Real> halo_;
    Real* host_send_ = nullptr;
    Real* host_receive_ = nullptr;
    std::vector<Communicator::Message> sends_, receives_;
};

}  // namespace ardent::ard::cuda
