// A rank's halo exchange on host arrays (ard_distribute.h's HaloPlan, one list of peers): packs
// the cells each peer reads, swaps the buffers through the Communicator, and writes what arrives
// into this rank's copies. Buffers are kept between steps.
#pragma once

#include <vector>

#include "ardent/solvers/ard_distribute.h"
#include "ardent/solvers/communicator.h"

namespace ardent::ard {

template <typename Real>
class HostHalo {
  public:
    HostHalo() = default;
    explicit HostHalo(std::vector<HaloPlan::Peer> peers) : peers_(std::move(peers)) {
        send_.resize(peers_.size());
        receive_.resize(peers_.size());
        for (size_t i = 0; i < peers_.size(); ++i) {
            send_[i].resize(peers_[i].send.size());
            receive_[i].resize(peers_[i].receive.size());
            if (!send_[i].empty())
                sends_.push_back({peers_[i].rank, send_[i].data(), send_[i].size() * sizeof(Real)});
            if (!receive_[i].empty())
                receives_.push_back(
                    {peers_[i].rank, receive_[i].data(), receive_[i].size() * sizeof(Real)});
        }
    }

    void exchange(Communicator& comm, Real* data) {
        for (size_t i = 0; i < peers_.size(); ++i)
            for (size_t k = 0; k < send_[i].size(); ++k)
                send_[i][k] = data[peers_[i].send[k]];
        comm.exchange(sends_, receives_);
        for (size_t i = 0; i < peers_.size(); ++i)
            for (size_t k = 0; k < receive_[i].size(); ++k)
                data[peers_[i].receive[k]] = receive_[i][k];
    }

    size_t cells() const {
        size_t n = 0;
        for (const auto& p : peers_)
            n += p.send.size() + p.receive.size();
        return n;
    }

  private:
    std::vector<HaloPlan::Peer> peers_;
    std::vector<std::vector<Real>> send_, receive_;
    std::vector<Communicator::Message> sends_, receives_;
};

}  // namespace ardent::ard
