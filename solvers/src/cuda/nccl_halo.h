// A distributed CUDA run's halo exchange from GPU to GPU through NCCL: the device halo
// (device_halo.h) gathered, sent and received with ncclSend/ncclRecv in one group on the solver's
// stream, and scattered into this rank's copies, all queued (and captured in the step's graph)
// with no host synchronisation. NCCL is loaded at run time (dlopen of libnccl.so.2), so a build or
// a machine without it runs the host-staged exchange instead (device_halo.h); the communicator's
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
#include "device_halo.h"

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
        halo_.build(peers, map, bytes);
    }

    // The cells sent and received.
    size_t cells() const { return halo_.send_size() + halo_.receive_size(); }

    // Queues gather, exchange and scatter on `stream` (capturable into a graph).
    void enqueue(const NcclComm& nccl, Real* data, cudaStream_t stream) const {
        halo_.gather(data, stream);
        const NcclApi& api = nccl.api();
        const ncclDataType_t type = sizeof(Real) == 4 ? ncclFloat32 : ncclFloat64;
        api.check(api.group_start(), "group");
        for (const auto& r : halo_.ranges()) {
            if (r.send_count > 0)
                api.check(api.send(halo_.send_values() + r.send_first, r.send_count, type, r.rank,
                                   nccl.get(), stream),
                          "send");
            if (r.receive_count > 0)
                api.check(api.recv(halo_.receive_values() + r.receive_first, r.receive_count, type,
                                   r.rank, nccl.get(), stream),
                          "receive");
        }
        api.check(api.group_end(), "group");
        halo_.scatter(data, stream);
        ARDENT_CUDA_CHECK(cudaGetLastError());
    }

  private:
    DeviceHalo<Real> halo_;
};

}  // namespace ardent::ard::cuda
