// A distributed CUDA run's halo exchange from GPU to GPU through NCCL: the cells peers read are
// gathered on the device, sent and received with ncclSend/ncclRecv in one group on the solver's
// stream, and scattered into this rank's copies, all queued (and captured in the step's graph)
// with no host synchronisation. NCCL is loaded at run time (dlopen of libnccl.so.2), so a build or
// a machine without it runs the host-staged exchange instead (ard_cuda.cu); the communicator's
// unique id travels over the ranks' Communicator.
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ardent/solvers/ard_distribute.h"
#include "ardent/solvers/communicator.h"
#include "cuda_check.h"
#include "device_array.h"
#include "step_kernels.cuh"

namespace ardent::ard::cuda {

// The NCCL entry points this backend uses, from libnccl.so.2 when it can be loaded.
struct NcclApi {
    decltype(&ncclGetUniqueId) get_unique_id = nullptr;
    decltype(&ncclCommInitRank) init_rank = nullptr;
    decltype(&ncclCommDestroy) destroy = nullptr;
    decltype(&ncclGroupStart) group_start = nullptr;
    decltype(&ncclGroupEnd) group_end = nullptr;
    decltype(&ncclSend) send = nullptr;
    decltype(&ncclRecv) recv = nullptr;
    decltype(&ncclGetErrorString) error_string = nullptr;

    // Null when NCCL cannot be loaded (`why` says why) or ARDENT_HALO=host asks for the host path.
    static const NcclApi* get(std::string* why) {
        static const std::pair<NcclApi, std::string> loaded = load();
        if (why) *why = loaded.second;
        return loaded.first.send ? &loaded.first : nullptr;
    }

    void check(ncclResult_t r, const char* what) const {
        if (r != ncclSuccess)
            throw std::runtime_error(std::string("NCCL: ") + what + ": " + error_string(r));
    }

  private:
    static std::pair<NcclApi, std::string> load() {
        NcclApi a;
        if (const char* h = std::getenv("ARDENT_HALO"); h && std::string(h) == "host")
            return {a, "ARDENT_HALO=host"};
        void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return {a, std::string("libnccl.so.2 not found (") + dlerror() + ")"};
        auto sym = [&](auto& f, const char* name) {
            f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
            return f != nullptr;
        };
        const bool ok = sym(a.get_unique_id, "ncclGetUniqueId") &&
                        sym(a.init_rank, "ncclCommInitRank") && sym(a.destroy, "ncclCommDestroy") &&
                        sym(a.group_start, "ncclGroupStart") && sym(a.group_end, "ncclGroupEnd") &&
                        sym(a.recv, "ncclRecv") && sym(a.error_string, "ncclGetErrorString") &&
                        sym(a.send, "ncclSend");
        if (!ok) return {NcclApi{}, "libnccl.so.2 lacks ncclSend/ncclRecv"};
        return {a, ""};
    }
};

// One NCCL communicator over the ranks of `comm` (collective), each on its current device.
class NcclComm {
  public:
    NcclComm(const NcclApi& api, Communicator& comm) : api_(api) {
        ncclUniqueId id{};
        if (comm.root()) api_.check(api_.get_unique_id(&id), "unique id");
        std::string bytes(reinterpret_cast<const char*>(&id), sizeof id);
        comm.broadcast(bytes);
        std::memcpy(&id, bytes.data(), sizeof id);
        api_.check(api_.init_rank(&comm_, comm.size(), id, comm.rank()), "init");
    }
    ~NcclComm() {
        if (comm_) api_.destroy(comm_);
    }
    NcclComm(const NcclComm&) = delete;
    NcclComm& operator=(const NcclComm&) = delete;
    const NcclApi& api() const { return api_; }
    ncclComm_t get() const { return comm_; }

  private:
    const NcclApi& api_;
    ncclComm_t comm_ = nullptr;
};

template <typename Real>
class NcclHalo {
  public:
    void build(const std::vector<HaloPlan::Peer>& peers, const std::function<void(int32_t&)>& map,
               size_t& bytes) {
        std::vector<int32_t> out, in;
        for (const HaloPlan::Peer& p : peers) {
            peers_.push_back({p.rank, out.size(), p.send.size(), in.size(), p.receive.size()});
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

    // Queues gather, exchange and scatter on `stream` (capturable into a graph).
    void enqueue(const NcclComm& nccl, Real* data, cudaStream_t stream) const {
        const long long n_out = static_cast<long long>(send_cells_.size());
        const long long n_in = static_cast<long long>(receive_cells_.size());
        if (n_out > 0)
            gather_values<<<blocks_for(n_out, 256), 256, 0, stream>>>(send_cells_.get(), n_out,
                                                                      data, send_values_.get());
        const NcclApi& api = nccl.api();
        const ncclDataType_t type = sizeof(Real) == 4 ? ncclFloat32 : ncclFloat64;
        api.check(api.group_start(), "group");
        for (const Peer& p : peers_) {
            if (p.send_count > 0)
                api.check(api.send(send_values_.get() + p.send_first, p.send_count, type, p.rank,
                                   nccl.get(), stream),
                          "send");
            if (p.receive_count > 0)
                api.check(api.recv(receive_values_.get() + p.receive_first, p.receive_count, type,
                                   p.rank, nccl.get(), stream),
                          "receive");
        }
        api.check(api.group_end(), "group");
        if (n_in > 0)
            scatter_values<<<blocks_for(n_in, 256), 256, 0, stream>>>(receive_cells_.get(), n_in,
                                                                      receive_values_.get(), data);
        ARDENT_CUDA_CHECK(cudaGetLastError());
    }

  private:
    struct Peer {
        int rank;
        size_t send_first, send_count, receive_first, receive_count;
    };
    std::vector<Peer> peers_;
    DeviceArray<int32_t> send_cells_, receive_cells_;
    DeviceArray<Real> send_values_, receive_values_;
};

}  // namespace ardent::ard::cuda
