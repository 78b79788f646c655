// An ARD run split over ranks (MPI processes, each with its CPU cores or its GPU): partitions are
// assigned to ranks by recursive bisection of the room, balanced by the cost of a step, and each
// rank gets a Layout of its own part that the unchanged backends step: its partitions, every
// interface line, wall face and PML line that writes one of its cells, the ghosts those read,
// and a halo of the other ranks' cells they read. Lines on a cut between two ranks are evaluated
// by both, each writing its own side, so every cell's forcing is summed in the same order as in a
// single-process run. Two exchanges per step keep the halo current (HaloPlan); nothing else
// crosses ranks but sums (field energy, stop requests) and the recorded signals, gathered on
// rank 0.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ardent/solvers/ard_layout.h"
#include "ardent/solvers/communicator.h"
#include "ardent/solvers/solver.h"

namespace ardent::ard {

// Per partition (Layout::partitions order), the rank that steps it: recursive bisection of the
// partitions' centres, each cut balancing the cost of a step (cells, interface and PML lines at
// their measured relative rates) between the ranks on either side (3 ranks split 1 : 2), along
// the axis whose cut separates the fewest interface lines. Ranks may get nothing when there are
// fewer partitions than ranks.
std::vector<int> assign_partitions(const Layout& global, int ranks);

// The cells one rank sends to and receives from each peer at each exchange, as indices into its
// own field (or forcing) arrays, in the order both sides agree on (the peer's global order).
struct HaloPlan {
    struct Peer {
        int rank = 0;
        std::vector<int32_t> send, receive;
    };
    // After every step: the air and PML cells at step n+1 that a peer's lines, walls, PML lines
    // and ghosts read.
    std::vector<Peer> field;
    // Within a step, before the C^2 time correction: the forcing on air cells that a peer's
    // interface lines read.
    std::vector<Peer> force;
};

struct LocalLayout {
    Layout layout;
    HaloPlan halo;
    // Cells and interface lines of this rank and of the whole run (reports, tests).
    size_t global_air_cells = 0;
};

// This rank's part of `global` (owner from assign_partitions). Collective: every rank of `comm`
// calls it with the same arguments; the ranks tell each other which cells they need.
LocalLayout localize(const Layout& global, std::span<const int> owner, Communicator& comm);

// Each rank's share of a run of `global` over `ranks`, without starting one (ardent info --ranks):
// the partitions, air cells and halo cells localize() would give it, and its PML cells.
struct RankShare {
    size_t partitions = 0, cells = 0, halo_cells = 0, pml_cells = 0;
};
std::vector<RankShare> plan_shares(const Layout& global, int ranks);

// What a backend steps: the whole run's layout, or with options.comm of several ranks this
// rank's part (its halo plan into `halo`). Collective in the second case.
Layout build_rank_layout(const Preprocessed& p, const SolverOptions& options, HaloPlan& halo);

}  // namespace ardent::ard
