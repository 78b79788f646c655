#include "ardent/solvers/ard_distribute.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ardent::ard {
namespace {

size_t cells_of(const PartitionSlot& s) {
    return static_cast<size_t>(s.size[0]) * static_cast<size_t>(s.size[1]) *
           static_cast<size_t>(s.size[2]);
}

// What assign_partitions weighs: each partition's cost in a step, in cell units, and the lines
// between each pair of partitions (which the halo exchanges must carry when the two are apart).
struct PartitionGraph {
    std::vector<double> cost;
    struct Edge {
        uint32_t a, b;
        double lines;
    };
    std::vector<Edge> edges;
};

// Stage times of one step on the Musikverein (docs/benchmarks.md, per-stage table, H100): the
// interface and C^2 stages (per air line) took 0.573 ms, the PML stage (per PML line) 0.119 ms,
// the three DCT stages (per cell) 0.621 ms. A partition costs its cells plus its share of the
// lines (half of each line it is a side of) and its PML lines at those relative rates.
PartitionGraph partition_graph(const Layout& L) {
    PartitionGraph g;
    const size_t P = L.partitions.size();
    g.cost.resize(P);
    std::vector<size_t> starts(P);
    for (size_t s = 0; s < P; ++s) {
        starts[s] = L.partitions[s].offset;
        g.cost[s] = static_cast<double>(cells_of(L.partitions[s]));
    }
    auto part_of = [&](int32_t c) -> int64_t {
        if (c < 0 || static_cast<size_t>(c) >= L.air_cells) return -1;
        return std::upper_bound(starts.begin(), starts.end(), static_cast<size_t>(c)) -
               starts.begin() - 1;
    };
    const double cells = static_cast<double>(std::max<size_t>(L.air_cells, 1));
    const double per_line =
        0.573 / 0.621 * cells / static_cast<double>(std::max<size_t>(L.air_lines, 1));
    const double per_pml =
        0.119 / 0.621 * cells / static_cast<double>(std::max<size_t>(L.pml.size(), 1));
    std::map<std::pair<uint32_t, uint32_t>, double> between;
    for (size_t l = 0; l < L.air_lines; ++l) {
        const int64_t a = part_of(L.lines[l].right[0]), b = part_of(L.lines[l].left[0]);
        for (int64_t x : {a, b})
            if (x >= 0) g.cost[static_cast<size_t>(x)] += per_line / 2;
        if (a >= 0 && b >= 0 && a != b)
            between[{static_cast<uint32_t>(std::min(a, b)),
                     static_cast<uint32_t>(std::max(a, b))}] += 1;
    }
    for (const PmlLine& pl : L.pml)
        for (int32_t c : pl.air)
            if (const int64_t a = part_of(c); a >= 0) {
                g.cost[static_cast<size_t>(a)] += per_pml;
                break;
            }
    for (const auto& [pair, n] : between)
        g.edges.push_back({pair.first, pair.second, n});
    return g;
}

void bisect(const Layout& L, const PartitionGraph& graph, std::vector<size_t>& parts, size_t begin,
            size_t end, int first, int ranks, std::vector<int>& owner, std::vector<int8_t>& side) {
    if (ranks <= 1 || end - begin <= 1) {
        for (size_t i = begin; i < end; ++i)
            owner[parts[i]] = first;
        return;
    }
    // Twice the centre, to stay in integers.
    auto centre2 = [&](size_t p, int a) {
        const PartitionSlot& s = L.partitions[p];
        return 2 * s.origin[static_cast<size_t>(a)] + s.size[static_cast<size_t>(a)];
    };
    // Ties broken by index: the order, and so every rank's assignment, depends on nothing else.
    auto sort_along = [&](int a) {
        std::sort(parts.begin() + static_cast<long>(begin), parts.begin() + static_cast<long>(end),
                  [&](size_t x, size_t y) {
                      const int cx = centre2(x, a), cy = centre2(y, a);
                      return cx != cy ? cx < cy : x < y;
                  });
    };
    double total = 0;
    for (size_t i = begin; i < end; ++i)
        total += graph.cost[parts[i]];
    const int left_ranks = ranks / 2;
    const double target = total * left_ranks / ranks;
    // Per axis, the partitions in order of their centres and the cut closest to the target cost,
    // then the lines that cut would separate. Partitions do not end at a plane: one that
    // straddles it goes whole to one side, and the cut follows its faces, so the axis with the
    // smallest cross-section may not separate the fewest lines. Among cuts within 2 % of the
    // target the one separating the fewest lines wins; else the best balanced.
    int axis = 0;
    size_t cut = begin;
    double best_miss = 0, best_lines = 0;
    bool best_ok = false, have = false;
    for (int a = 0; a < 3; ++a) {
        sort_along(a);
        size_t c = begin;
        double acc = 0;
        while (c < end) {
            const double w = graph.cost[parts[c]];
            // Stop where adding the next partition would overshoot more than stopping undershoots.
            if (acc + w / 2 > target) break;
            acc += w;
            ++c;
        }
        if (c == begin) acc += graph.cost[parts[c++]];
        if (c == end) acc -= graph.cost[parts[--c]];
        for (size_t i = begin; i < end; ++i)
            side[parts[i]] = i < c ? 1 : 2;
        double lines = 0;
        for (const auto& e : graph.edges)
            if (side[e.a] && side[e.b] && side[e.a] != side[e.b]) lines += e.lines;
        const double miss = std::abs(acc - target) / total;
        const bool ok = miss <= 0.02;
        const bool better = !have || (ok && !best_ok) || (ok && best_ok && lines < best_lines) ||
                            (!ok && !best_ok && miss < best_miss);
        if (better) {
            axis = a;
            cut = c;
            best_miss = miss;
            best_lines = lines;
            best_ok = ok;
            have = true;
        }
    }
    for (size_t i = begin; i < end; ++i)
        side[parts[i]] = 0;
    sort_along(axis);
    bisect(L, graph, parts, begin, cut, first, left_ranks, owner, side);
    bisect(L, graph, parts, cut, end, first + left_ranks, ranks - left_ranks, owner, side);
}

// Sends each peer the global indices this rank needs from it and returns, per peer, the global
// indices that peer needs from this rank.
std::vector<std::vector<int32_t>> swap_requests(const std::vector<std::vector<int32_t>>& need,
                                                Communicator& comm) {
    const int P = comm.size(), me = comm.rank();
    std::vector<int64_t> send_count(static_cast<size_t>(P)), recv_count(static_cast<size_t>(P));
    std::vector<Communicator::Message> sends, recvs;
    for (int q = 0; q < P; ++q) {
        if (q == me) continue;
        const auto uq = static_cast<size_t>(q);
        send_count[uq] = static_cast<int64_t>(need[uq].size());
        sends.push_back({q, &send_count[uq], sizeof(int64_t)});
        recvs.push_back({q, &recv_count[uq], sizeof(int64_t)});
    }
    comm.exchange(sends, recvs);
    std::vector<std::vector<int32_t>> wanted(static_cast<size_t>(P));
    sends.clear();
    recvs.clear();
    for (int q = 0; q < P; ++q) {
        if (q == me) continue;
        const auto uq = static_cast<size_t>(q);
        wanted[uq].resize(static_cast<size_t>(recv_count[uq]));
        if (!need[uq].empty())
            sends.push_back(
                {q, const_cast<int32_t*>(need[uq].data()), need[uq].size() * sizeof(int32_t)});
        if (!wanted[uq].empty())
            recvs.push_back({q, wanted[uq].data(), wanted[uq].size() * sizeof(int32_t)});
    }
    comm.exchange(sends, recvs);
    return wanted;
}

// One rank of `ranks` that exchanges nothing: localize() then numbers the rank's part as in a
// run, with no requests from the others (plan_shares).
class PlanningCommunicator final : public Communicator {
  public:
    PlanningCommunicator(int rank, int size) : rank_(rank), size_(size) {}
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void exchange(std::span<const Message>, std::span<const Message>) override {}
    double sum(double v) override { return v; }
    bool any(bool v) override { return v; }
    void sum_to_root(double*, size_t) override {}
    void sum_to_root(float*, size_t) override {}
    void broadcast(std::string&) override {}
    void barrier() override {}

  private:
    int rank_, size_;
};

}  // namespace

std::vector<RankShare> plan_shares(const Layout& global, int ranks) {
    const std::vector<int> owner = assign_partitions(global, ranks);
    std::vector<RankShare> out;
    for (int r = 0; r < ranks; ++r) {
        PlanningCommunicator comm(r, ranks);
        const Layout L = localize(global, owner, comm).layout;
        out.push_back({L.partitions.size(), L.owned_air_cells,
                       L.air_cells - L.owned_air_cells + L.halo_cells, L.pml_cells});
    }
    return out;
}

std::vector<int> assign_partitions(const Layout& global, int ranks) {
    std::vector<int> owner(global.partitions.size(), 0);
    std::vector<size_t> parts(global.partitions.size());
    std::iota(parts.begin(), parts.end(), size_t{0});
    if (ranks <= 1) return owner;
    const PartitionGraph graph = partition_graph(global);
    std::vector<int8_t> side(global.partitions.size(), 0);
    bisect(global, graph, parts, 0, parts.size(), 0, ranks, owner, side);
    return owner;
}

LocalLayout localize(const Layout& G, std::span<const int> owner, Communicator& comm) {
    const int me = comm.rank(), P = comm.size();
    if (owner.size() != G.partitions.size())
        throw std::invalid_argument("localize: one owner per partition expected");
    const auto GA = static_cast<int32_t>(G.air_cells);
    const auto GP = static_cast<int32_t>(G.pml_cells);
    const int D = G.pml_depth;

    // Owners: an air cell's partition's rank; a PML line goes with the air cell it lies behind.
    std::vector<size_t> starts(G.partitions.size());
    for (size_t s = 0; s < G.partitions.size(); ++s)
        starts[s] = G.partitions[s].offset;
    auto air_owner = [&](int32_t c) {
        const auto it = std::upper_bound(starts.begin(), starts.end(), static_cast<size_t>(c));
        return owner[static_cast<size_t>(it - starts.begin() - 1)];
    };
    auto first_air = [&](int32_t c) -> int32_t {
        if (c < 0) return -1;
        if (c < GA) return c;
        if (c >= GA + GP) {  // a ghost: its first air term
            const auto g = static_cast<size_t>(c - GA - GP);
            for (int32_t t = G.ghost_offsets[g]; t < G.ghost_offsets[g + 1]; ++t)
                if (G.ghost_terms[static_cast<size_t>(t)] < GA)
                    return G.ghost_terms[static_cast<size_t>(t)];
        }
        return -1;
    };
    std::vector<int> pml_owner(G.pml.size(), 0);
    for (size_t l = 0; l < G.pml.size(); ++l)
        for (int32_t c : G.pml[l].air)
            if (const int32_t a = first_air(c); a >= 0) {
                pml_owner[l] = air_owner(a);
                break;
            }
    auto cell_owner = [&](int32_t c) {
        if (c < GA) return air_owner(c);
        return pml_owner[static_cast<size_t>((c - GA) / D)];
    };
    std::vector<char> mine_air(G.air_cells, 0);
    for (size_t s = 0; s < G.partitions.size(); ++s)
        if (owner[s] == me)
            std::fill_n(mine_air.begin() + static_cast<long>(G.partitions[s].offset),
                        cells_of(G.partitions[s]), char{1});
    auto owned = [&](int32_t c) { return c >= 0 && c < GA && mine_air[static_cast<size_t>(c)]; };

    // What this rank steps, and every field cell it reads.
    std::vector<char> needed(G.field_cells(), 0);
    auto need = [&](int32_t c) {
        if (c >= 0) needed[static_cast<size_t>(c)] = 1;
    };
    std::vector<size_t> lines;
    // Air and PML cells whose forcing (or PML acceleration) the C^2 corrections and the PML
    // lines' time correction read; a ghost's read is its terms'.
    std::vector<char> force_read(static_cast<size_t>(GA + GP), 0);
    auto read_force = [&](int32_t c) {
        if (c < 0) return;
        if (c < GA + GP) {
            force_read[static_cast<size_t>(c)] = 1;
            return;
        }
        const auto g = static_cast<size_t>(c - GA - GP);
        for (int32_t t = G.ghost_offsets[g]; t < G.ghost_offsets[g + 1]; ++t)
            force_read[static_cast<size_t>(G.ghost_terms[static_cast<size_t>(t)])] = 1;
    };
    for (size_t l = 0; l < G.lines.size(); ++l) {
        const InterfaceLine& line = G.lines[l];
        bool keep = false;
        for (int j = 0; j < kReach; ++j)
            keep = keep || owned(line.right[j]) || owned(line.left[j]);
        if (!keep) continue;
        lines.push_back(l);
        for (int j = 0; j < kReach; ++j)
            for (int32_t c : {line.right[j], line.left[j], line.far_right[j], line.far_left[j],
                              line.own_right[j], line.own_left[j]})
                need(c);
        if (l >= G.air_lines) {
            for (int j = 0; j < kReach; ++j)
                for (int32_t c : {line.far_right[j], line.own_right[j]})
                    read_force(c);
            continue;
        }
        for (int j = 0; j < kReach; ++j) {
            if (line.right[0] >= 0)
                for (int32_t c : {line.far_right[j], line.own_right[j]})
                    if (c >= 0 && c < GA) force_read[static_cast<size_t>(c)] = 1;
            if (line.left[0] >= 0)
                for (int32_t c : {line.far_left[j], line.own_left[j]})
                    if (c >= 0 && c < GA) force_read[static_cast<size_t>(c)] = 1;
        }
    }
    std::vector<size_t> faces;
    for (size_t f = 0; f < G.wall_faces.size(); ++f) {
        const WallFace& w = G.wall_faces[f];
        bool keep = false;
        for (int32_t t = w.cells_begin; t < w.cells_end; ++t)
            keep = keep || owned(G.wall_cells[static_cast<size_t>(t)]);
        if (!keep) continue;
        faces.push_back(f);
        for (int32_t t = w.cells_begin; t < w.cells_end; ++t)
            need(G.wall_cells[static_cast<size_t>(t)]);
    }
    std::vector<size_t> pml_lines;
    for (size_t l = 0; l < G.pml.size(); ++l) {
        if (pml_owner[l] != me) continue;
        pml_lines.push_back(l);
        for (int32_t c : G.pml[l].air) {
            need(c);
            read_force(c);
        }
    }
    // Ghosts read their terms (air and PML cells, never ghosts).
    for (size_t g = 0; g < G.ghost_cells; ++g)
        if (needed[static_cast<size_t>(GA + GP) + g])
            for (int32_t t = G.ghost_offsets[g]; t < G.ghost_offsets[g + 1]; ++t)
                need(G.ghost_terms[static_cast<size_t>(t)]);

    // Local numbering: own partitions, halo air, own PML lines, ghosts, halo PML cells.
    LocalLayout out;
    out.global_air_cells = G.air_cells;
    Layout& L = out.layout;
    L.h = G.h;
    L.c = G.c;
    L.dt = G.dt;
    L.pml_depth = D;
    L.grid = G.grid;
    std::vector<int32_t> local(G.field_cells(), -1);
    std::vector<int> group_local(G.groups.size(), -1);
    size_t next = 0;
    for (size_t s = 0; s < G.partitions.size(); ++s) {
        if (owner[s] != me) continue;
        PartitionSlot slot = G.partitions[s];
        if (group_local[slot.group] < 0) {
            group_local[slot.group] = static_cast<int>(L.groups.size());
            L.groups.push_back({G.groups[slot.group].size, L.partitions.size(), 0});
        }
        slot.group = static_cast<uint32_t>(group_local[slot.group]);
        ++L.groups[slot.group].count;
        const size_t n = cells_of(slot);
        for (size_t i = 0; i < n; ++i)
            local[slot.offset + i] = static_cast<int32_t>(next + i);
        slot.offset = next;
        next += n;
        L.partitions.push_back(slot);
    }
    L.owned_air_cells = next;
    std::vector<std::vector<int32_t>> need_field(static_cast<size_t>(P)),
        need_force(static_cast<size_t>(P));
    std::vector<std::vector<int32_t>> recv_field(static_cast<size_t>(P)),
        recv_force(static_cast<size_t>(P));
    for (int32_t c = 0; c < GA; ++c) {
        if (!needed[static_cast<size_t>(c)] || owned(c)) continue;
        local[static_cast<size_t>(c)] = static_cast<int32_t>(next++);
        const auto q = static_cast<size_t>(air_owner(c));
        need_field[q].push_back(c);
        recv_field[q].push_back(local[static_cast<size_t>(c)]);
        if (force_read[static_cast<size_t>(c)]) {
            need_force[q].push_back(c);
            recv_force[q].push_back(local[static_cast<size_t>(c)]);
        }
    }
    L.air_cells = next;
    for (size_t i = 0; i < pml_lines.size(); ++i)
        for (int k = 0; k < D; ++k)
            local[G.air_cells + pml_lines[i] * static_cast<size_t>(D) + static_cast<size_t>(k)] =
                static_cast<int32_t>(next + i * static_cast<size_t>(D) + static_cast<size_t>(k));
    L.pml_cells = pml_lines.size() * static_cast<size_t>(D);
    next += L.pml_cells;
    std::vector<size_t> ghosts;
    for (size_t g = 0; g < G.ghost_cells; ++g)
        if (needed[static_cast<size_t>(GA + GP) + g]) {
            local[static_cast<size_t>(GA + GP) + g] = static_cast<int32_t>(next++);
            ghosts.push_back(g);
        }
    L.ghost_cells = ghosts.size();
    L.pml_ghosts = static_cast<size_t>(
        std::lower_bound(ghosts.begin(), ghosts.end(), G.pml_ghosts) - ghosts.begin());
    for (int32_t c = GA; c < GA + GP; ++c) {
        if (!needed[static_cast<size_t>(c)] || local[static_cast<size_t>(c)] >= 0) continue;
        local[static_cast<size_t>(c)] = static_cast<int32_t>(next++);
        const auto q = static_cast<size_t>(cell_owner(c));
        need_field[q].push_back(c);
        recv_field[q].push_back(local[static_cast<size_t>(c)]);
        if (force_read[static_cast<size_t>(c)]) {
            need_force[q].push_back(c);
            recv_force[q].push_back(local[static_cast<size_t>(c)]);
        }
        ++L.halo_cells;
    }
    auto map = [&](int32_t c) -> int32_t {
        if (c < 0) return c;
        const int32_t m = local[static_cast<size_t>(c)];
        if (m < 0) throw std::logic_error("localize: cell " + std::to_string(c) + " not numbered");
        return m;
    };

    // Lines, in global order; a batch keeps its lines (still disjoint), empty batches go.
    size_t li = 0;
    for (size_t b = 0; b < G.batches.size(); ++b) {
        LineBatch lb{L.lines.size(), L.lines.size()};
        while (li < lines.size() && lines[li] < G.batches[b].end) {
            InterfaceLine line = G.lines[lines[li]];
            for (int j = 0; j < kReach; ++j)
                for (int32_t* c : {&line.right[j], &line.left[j], &line.far_right[j],
                                   &line.far_left[j], &line.own_right[j], &line.own_left[j]})
                    *c = map(*c);
            if (lines[li] < G.air_lines) ++L.air_lines;
            L.lines.push_back(line);
            ++li;
        }
        lb.end = L.lines.size();
        if (lb.end == lb.begin) continue;
        L.batches.push_back(lb);
        if (b < G.air_batches) ++L.air_batches;
    }
    for (size_t l : pml_lines) {
        PmlLine pl = G.pml[l];
        for (int32_t& c : pl.air)
            c = map(c);
        L.pml.push_back(pl);
    }
    L.wall_branches = G.wall_branches;
    for (size_t f : faces) {
        WallFace w = G.wall_faces[f];
        const int32_t begin = static_cast<int32_t>(L.wall_cells.size());
        for (int32_t t = w.cells_begin; t < w.cells_end; ++t) {
            L.wall_cells.push_back(map(G.wall_cells[static_cast<size_t>(t)]));
            L.wall_weights.push_back(G.wall_weights[static_cast<size_t>(t)]);
        }
        w.cells_begin = begin;
        w.cells_end = static_cast<int32_t>(L.wall_cells.size());
        w.state_begin = static_cast<int32_t>(L.wall_states);
        L.wall_states += static_cast<size_t>(w.branches);
        L.wall_faces.push_back(w);
    }
    for (size_t g : ghosts) {
        for (int32_t t = G.ghost_offsets[g]; t < G.ghost_offsets[g + 1]; ++t) {
            L.ghost_terms.push_back(map(G.ghost_terms[static_cast<size_t>(t)]));
            L.ghost_weights.push_back(G.ghost_weights[static_cast<size_t>(t)]);
        }
        L.ghost_offsets.push_back(static_cast<int32_t>(L.ghost_terms.size()));
    }
    auto mine = [&](int32_t c) { return owned(c) ? local[static_cast<size_t>(c)] : -1; };
    L.source = mine(G.source);
    for (int32_t c : G.receivers)
        L.receivers.push_back(mine(c));
    for (int32_t c : G.grid_cells)
        L.grid_cells.push_back(mine(c));
    L.grid_positions = G.grid_positions;
    L.cell_index.assign(G.cell_index.size(), -1);
    for (size_t i = 0; i < G.cell_index.size(); ++i)
        L.cell_index[i] = mine(G.cell_index[i]);

    // Tell each owner what this rank reads; learn what the others read from it.
    const auto field_wanted = swap_requests(need_field, comm);
    const auto force_wanted = swap_requests(need_force, comm);
    for (int q = 0; q < P; ++q) {
        const auto uq = static_cast<size_t>(q);
        auto local_of = [&](const std::vector<int32_t>& global) {
            std::vector<int32_t> v;
            v.reserve(global.size());
            for (int32_t c : global) {
                if (cell_owner(c) != me)
                    throw std::logic_error("localize: rank " + std::to_string(q) + " asked rank " +
                                           std::to_string(me) + " for cell " + std::to_string(c) +
                                           " it does not own");
                v.push_back(map(c));
            }
            return v;
        };
        if (!field_wanted[uq].empty() || !recv_field[uq].empty())
            out.halo.field.push_back({q, local_of(field_wanted[uq]), recv_field[uq]});
        if (!force_wanted[uq].empty() || !recv_force[uq].empty())
            out.halo.force.push_back({q, local_of(force_wanted[uq]), recv_force[uq]});
    }
    return out;
}

Layout build_rank_layout(const Preprocessed& p, const SolverOptions& o, HaloPlan& halo) {
    Layout global = build_layout(p, o.source, o.listener_grid, o.ard_courant, o.receiver_gradients);
    if (!o.comm || o.comm->size() <= 1) return global;
    const std::vector<int> owner = assign_partitions(global, o.comm->size());
    LocalLayout part = localize(global, owner, *o.comm);
    halo = std::move(part.halo);
    return std::move(part.layout);
}

}  // namespace ardent::ard
