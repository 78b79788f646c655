// The few collective operations a distributed run needs, as an interface the solvers and the
// pipeline use without depending on MPI: point-to-point exchanges of byte buffers with peers
// (the halo of a partitioned ARD run), sums across ranks (field energy, recorded signals gathered
// on rank 0), a broadcast from rank 0 and a barrier. The MPI implementation is in distributed/;
// a run without one (a null Communicator*) is a single process.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace ardent {

class Communicator {
  public:
    virtual ~Communicator() = default;

    virtual int rank() const = 0;
    virtual int size() const = 0;
    bool root() const { return rank() == 0; }

    // One buffer sent to or received from `peer`; a receive's `bytes` must be what the peer sends.
    struct Message {
        int peer = 0;
        void* data = nullptr;
        size_t bytes = 0;
    };
    // Posts every receive and every send, then waits for all of them. Each pair of ranks that
    // exchange must both call it (a rank with nothing to exchange need not).
    virtual void exchange(std::span<const Message> sends, std::span<const Message> receives) = 0;

    // Sums over all ranks, every rank getting the result.
    virtual double sum(double value) = 0;
    // True on every rank when it is true on any (a stop request seen by one rank).
    virtual bool any(bool value) = 0;
    // Element-wise sums over all ranks into rank 0's `data`; other ranks' `data` is unchanged.
    virtual void sum_to_root(double* data, size_t n) = 0;
    virtual void sum_to_root(float* data, size_t n) = 0;
    // Rank 0's `text` on every rank.
    virtual void broadcast(std::string& text) = 0;
    virtual void barrier() = 0;
};

}  // namespace ardent
