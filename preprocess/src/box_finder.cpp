#include "box_finder.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "cube_sides.h"
#include "thread_share.h"

namespace ardent {
namespace {

size_t level(int side) {
    return static_cast<size_t>(std::bit_width(static_cast<unsigned>(side)) - 1);
}

// Greedy boxes, largest first: every free cell is ranked by the side of the largest free cube
// anchored at it (its minimum corner), found by a 3-D dynamic programme (cube_sides.h). Levels are
// taken from the largest power of two down: first the cells whose cube was of that level at the
// start, in memory order, then those moved down into it, in the order they came; a cell whose
// cube shrank since (a neighbouring box was claimed) moves down to its new level. From each anchor
// the largest box with allowed sides (PartitionSides) that is all free air is claimed; ties go to
// the most cubical. Cells left with cubes of side 1 are swept last in memory order.
//
// Deterministic on any number of threads: the cells of a batch have their cubes measured on all
// cores against the state at the batch's start, then are taken one by one in order, and a cell
// whose measure read a row that a box claimed since has changed is measured again. So every
// decision sees exactly the state a serial sweep would.
class BoxFinder {
  public:
    // Runs of up to 3 cells: the coupling matrix is fitted for partitions of 4 cells and more
    // (docs/ard.md, "Partition sides").
    static constexpr int kAvoidRun = 3;
    static constexpr double kSmoothSideWeight = 0.7;
    BoxFinder(const AirModel& air, int max_side, PartitionSides sides)
        : g_(air.grid), max_side_(max_side), avoid_thin_(sides != PartitionSides::PowerOfTwo) {
        for (int n = max_side; n >= 1; --n)
            if (side_allowed(n, sides)) sides_.push_back(n);
        free_ = air.air;
        thin_ = air.thin.empty() ? nullptr : &air.thin;
        run_.assign(g_.count(), 0);
        if (thin_) {
            open_y_.assign(g_.count(), 0);
            open_z_.assign(g_.count(), 0);
        }
#pragma omp parallel for schedule(static)
        for (int k = 0; k < g_.dims[2]; ++k)
            for (int j = 0; j < g_.dims[1]; ++j) {
                int run = 0, oy = 0, oz = 0;
                for (int i = g_.dims[0] - 1; i >= 0; --i) {
                    const size_t idx = g_.index(i, j, k);
                    // A run ends at a thin face (air.h) as at a solid cell.
                    run = !free_[idx] ? 0 : x_blocked(idx + 1) ? 1 : std::min(run + 1, 1 << 30);
                    run_[idx] = run;
                    if (!thin_) continue;
                    oy = ((*thin_)[idx] & 2) ? 0 : std::min(oy + 1, 0xffff);
                    oz = ((*thin_)[idx] & 4) ? 0 : std::min(oz + 1, 0xffff);
                    open_y_[idx] = static_cast<uint16_t>(oy);
                    open_z_[idx] = static_cast<uint16_t>(oz);
                }
            }
    }

    std::vector<Partition> run() {
        std::vector<Partition> out;
        const int levels = std::bit_width(static_cast<unsigned>(max_side_));
        cube_ = largest_free_cubes(g_, free_, max_side_);
        const std::vector<Span> spans = level_spans(levels);
        demoted_.assign(static_cast<size_t>(levels), {});
        for (int b = levels - 1; b >= 1; --b) {
            const Span s = spans[static_cast<size_t>(b)];
            for (size_t lo = s.first; lo < s.last; lo += kBatchCells) {
                const size_t hi = std::min(s.last, lo + kBatchCells);
                visit_batch(b, hi - lo, out, [&](size_t n) {
                    const size_t idx = lo + n;
                    const bool of_level = free_[idx] && cube_[idx] >= 2 &&
                                          level(cube_[idx]) == static_cast<size_t>(b);
                    return of_level ? idx : kNone;
                });
            }
            // Only higher levels move cells down, so this list is complete by now.
            const std::vector<size_t>& moved = demoted_[static_cast<size_t>(b)];
            for (size_t lo = 0; lo < moved.size(); lo += kBatchMoved)
                visit_batch(b, std::min(moved.size() - lo, kBatchMoved), out, [&](size_t n) {
                    const size_t idx = moved[lo + n];
                    return free_[idx] ? idx : kNone;
                });
            std::vector<size_t>().swap(demoted_[static_cast<size_t>(b)]);
        }
        std::vector<uint16_t>().swap(cube_);
        const size_t n = g_.count();
        for (size_t idx = 0; idx < n; ++idx) {
            if (!free_[idx]) continue;
            Partition p = best_box(g_.coords(idx));
            claim(p);
            out.push_back(p);
        }
        return out;
    }

  private:
    static constexpr size_t kNone = std::numeric_limits<size_t>::max();
    // Cells scanned per batch, cells moved down taken per batch, and the boxes claimed within a
    // batch beyond which its later cells are measured again without testing each box.
    static constexpr size_t kBatchCells = size_t{1} << 17;
    static constexpr size_t kBatchMoved = size_t{1} << 14;
    static constexpr size_t kMaxClaimsTested = 32;
    static constexpr size_t kMinRound = 256;  // cells a round of measures takes at least
    // Anchors whose run along x reaches this search their boxes on all cores; boxes of this many
    // cells are claimed on all cores.
    static constexpr int kParallelSearchSide = 16;
    static constexpr size_t kParallelClaimCells = size_t{1} << 15;

    static constexpr int kUnmeasured = -1;
    struct Span {
        size_t first = kNone, last = 0;  // [first, last): the cells of one level
    };

    // Where each level's cells lie in memory (cube sides of 2 and more), counted on all cores.
    std::vector<Span> level_spans(int levels) const {
        std::vector<Span> spans(static_cast<size_t>(levels));
#pragma omp parallel
        {
            std::vector<Span> mine(spans.size());
            const auto [lo, hi] = thread_share(cube_.size());
            for (size_t i = lo; i < hi; ++i) {
                if (cube_[i] < 2) continue;
                Span& s = mine[level(cube_[i])];
                s.first = std::min(s.first, i);
                s.last = i + 1;
            }
#pragma omp critical
            for (size_t b = 0; b < spans.size(); ++b) {
                spans[b].first = std::min(spans[b].first, mine[b].first);
                spans[b].last = std::max(spans[b].last, mine[b].last);
            }
        }
        return spans;
    }

    // The cells pick(0 .. n-1) gives (kNone: none), at level b, each taken in order: skipped
    // once claimed, left for the final sweep below side 2, moved down to its new level, or the
    // anchor of a box. Their cubes are measured ahead on all cores in rounds; a thread stops at
    // the first cube that reaches 2^b, likely the anchor of a box that will claim the cells after
    // it, and the cells left unmeasured wait for the next round.
    template <class Pick>
    void visit_batch(int b, size_t n, std::vector<Partition>& out, const Pick& pick) {
        gather(n, pick);
        const size_t m = cells_.size();
        const int limit = 1 << b;  // level b holds no larger cubes: only whether they reach 2^b
        side_.assign(m, kUnmeasured);
        since_.resize(m);
        claimed_.clear();
        for (size_t pos = 0, start = 0; pos < m; start = pos) {
#pragma omp parallel
            {
                const auto [lo, hi] = thread_share(m - pos);
                for (size_t i = pos + lo; i < pos + hi; ++i) {
                    if (side_[i] != kUnmeasured || !free_[cells_[i]]) continue;
                    side_[i] = cube_side(g_.coords(cells_[i]), limit);
                    since_[i] = claimed_.size();
                    if (side_[i] >= limit) break;
                }
            }
            for (; pos < m; ++pos) {
                const size_t idx = cells_[pos];
                if (!free_[idx]) continue;
                if (side_[pos] == kUnmeasured) {
                    // Rounds that advance little (boxes claimed close together, cheap cubes)
                    // go on here rather than pay a round's start.
                    if (pos - start >= kMinRound) break;  // for the next round
                    side_[pos] = cube_side(g_.coords(idx), limit);
                    since_[pos] = claimed_.size();
                }
                const Index3 at = g_.coords(idx);
                int side = side_[pos];
                if (stale(at, side, since_[pos])) side = cube_side(at, limit);
                if (side < 2) continue;  // left for the final sweep
                if (level(side) < static_cast<size_t>(b)) {
                    demoted_[level(side)].push_back(idx);
                    continue;
                }
                Partition p = best_box(at);
                claim(p);
                out.push_back(p);
                claimed_.push_back(p);
            }
        }
    }

    // cells_ = the cells pick(0 .. n-1) gives, in order, gathered on all cores.
    template <class Pick>
    void gather(size_t n, const Pick& pick) {
        found_.resize(static_cast<size_t>(max_threads()));
        for (auto& f : found_)
            f.clear();
#pragma omp parallel
        {
            std::vector<size_t>& mine = found_[static_cast<size_t>(thread_number())];
            const auto [lo, hi] = thread_share(n);
            for (size_t i = lo; i < hi; ++i)
                if (const size_t idx = pick(i); idx != kNone) mine.push_back(idx);
        }
        cells_.clear();
        for (const std::vector<size_t>& f : found_)  // threads' shares, in order
            cells_.insert(cells_.end(), f.begin(), f.end());
    }

    // Whether a box claimed since the cube of `side` at c was measured (claimed_[since..]) may have
    // changed it: whether it set a run of the rows (y, z) in [c, c + side) at x = c[0] (a claim
    // sets the runs of its own rows up to its far face: the runs reaching into it now stop there).
    // Claims only shorten runs, so a cube whose rows kept theirs keeps its side.
    bool stale(Index3 c, int side, size_t since) const {
        if (claimed_.size() - since > kMaxClaimsTested) return true;
        for (size_t n = since; n < claimed_.size(); ++n) {
            const Partition& p = claimed_[n];
            const bool hit = c[0] < p.origin[0] + p.size[0] && c[1] < p.origin[1] + p.size[1] &&
                             p.origin[1] < c[1] + side && c[2] < p.origin[2] + p.size[2] &&
                             p.origin[2] < c[2] + side;
            if (hit) return true;
        }
        return false;
    }

    // Whether a thin face blocks the link from cell idx to its neighbour at -1 along x (idx may be
    // one past a row's end: the next row's first cell, which has no such face).
    bool x_blocked(size_t idx) const {
        return thin_ && idx < thin_->size() && ((*thin_)[idx] & 1);
    }
    // Whether row r of layer z of a box anchored at s with X cells along x may join it: its runs
    // reach X, and no thin face lies between it and the row before (r > 0) or the layer below
    // (z > s[2]) over those X cells.
    bool row_joins(Index3 s, int r, int z, int X) const {
        const size_t idx = g_.index(s[0], s[1] + r, z);
        if (run_[idx] < X) return false;
        if (!thin_) return true;
        return (r == 0 || open_y_[idx] >= X) && (z == s[2] || open_z_[idx] >= X);
    }

    // Side (at most `limit`) of the largest free cube anchored at c, from the x runs. A cube of
    // side t needs every one of its t*t rows to run >= t; growing t only adds the 2t-1 rows of the
    // new layer and column to the running minimum, so the search reads O(side^2) rows, not
    // O(side^3).
    int cube_side(Index3 c, int limit) const {
        int s = 0, shortest = std::numeric_limits<int>::max();
        while (s < limit && c[0] + s < g_.dims[0] && c[1] + s < g_.dims[1] &&
               c[2] + s < g_.dims[2]) {
            const int t = s + 1;
            for (int y = 0; y < t; ++y)  // the new layer z = s
                shortest = std::min(shortest, run_[g_.index(c[0], c[1] + y, c[2] + s)]);
            for (int z = 0; z < s; ++z)  // the new row y = s of the older layers
                shortest = std::min(shortest, run_[g_.index(c[0], c[1] + s, c[2] + z)]);
            if (shortest < t) break;
            s = t;
        }
        return s;
    }

    // Whether a box side of n cells from a free run of `free` leaves a run of 1 to kAvoidRun cells
    // behind it, which the smooth side sets avoid (docs/ard.md, "Partition sides").
    bool leaves_thin(int n, int free) const {
        return avoid_thin_ && free - n >= 1 && free - n <= kAvoidRun;
    }
    // A partition with a side that is not a power of two keeps every side within
    // kMaxSmoothPartitionSide: the CUDA backend transforms such partitions by direct sums.
    static bool shape_allowed(int x, int y, int z) {
        const bool pow2 = std::has_single_bit(static_cast<unsigned>(x)) &&
                          std::has_single_bit(static_cast<unsigned>(y)) &&
                          std::has_single_bit(static_cast<unsigned>(z));
        return pow2 || std::max({x, y, z}) <= kMaxSmoothPartitionSide;
    }
    // A side's weight in the choice of boxes: a smooth side is transformed by direct sums on the
    // GPU, whose cost grows with the side (docs/ard.md, "Partition sides"), so a box counts 0.7
    // of its volume per smooth side. Measured on the Musikverein at 1650 Hz: cells in a smooth
    // side's lines 30/25/48 % (x/y/z) unweighted, 18/21/32 % at 0.7; at 0.5 the air lines
    // crossing a partition thinner than 3 cells rose from 36 % to 65 %.
    static double side_weight(int n) {
        return std::has_single_bit(static_cast<unsigned>(n)) ? 1.0 : kSmoothSideWeight;
    }
    // The allowed side up to `free` that leaves no thin run with the largest weighted length, or 0.
    int pick_side(int free) const {
        int best = 0;
        for (int n : sides_)
            if (n <= free && !leaves_thin(n, free) && n * side_weight(n) > best * side_weight(best))
                best = n;
        return best;
    }

    // A box and what ranks it: its weighted volume, then how cubical it is.
    struct Choice {
        Partition box;
        double vol = 0;
        int aspect = 0;
    };
    // Whether a later candidate replaces the one chosen so far: so the first of the best wins.
    static bool better(const Choice& a, const Choice& b) {
        return a.vol > b.vol || (a.vol == b.vol && a.aspect < b.aspect);
    }

    // The box anchored at s: the candidates taken side along x by side along y, largest first.
    // Anchors with long runs search their sides along x on all cores, each on its own; the
    // choices are taken in the same order either way.
    Partition best_box(Index3 s) {
        const int max_x = std::min(run_[g_.index(s)], max_side_);
        std::vector<int> xs;
        for (int X : sides_)
            if (X <= max_x && !leaves_thin(X, max_x)) xs.push_back(X);
        std::vector<Choice> per_x(xs.size());
#pragma omp parallel for schedule(dynamic, 1) if (max_x >= kParallelSearchSide)
        for (int n = 0; n < static_cast<int>(xs.size()); ++n)
            per_x[static_cast<size_t>(n)] = best_with_x(s, xs[static_cast<size_t>(n)]);
        Choice best{{s, {1, 1, 1}}, 1.0, 1};
        for (const Choice& c : per_x)
            if (better(c, best)) best = c;
        return best.box;
    }

    // The best box anchored at s with X cells along x (vol 0 where there is none).
    Choice best_with_x(Index3 s, int X) const {
        Choice best;
        std::vector<int> rows;  // per layer: consecutive rows from s[1] whose run reaches X
        int y_cap = std::min(g_.dims[1] - s[1], max_side_);
        for (int z = s[2]; z < g_.dims[2] && static_cast<int>(rows.size()) < max_side_; ++z) {
            int r = 0;
            while (r < y_cap && row_joins(s, r, z, X))
                ++r;
            if (r == 0) break;
            rows.push_back(r);
            y_cap = r;  // later layers only matter up to this many rows
        }
        const int max_y = rows.empty() ? 0 : rows[0];
        for (int Y : sides_) {
            if (Y > max_y || leaves_thin(Y, max_y)) continue;
            int zfree = 0;
            while (zfree < static_cast<int>(rows.size()) && rows[zfree] >= Y)
                ++zfree;
            const int Z = pick_side(zfree);
            if (Z == 0 || !shape_allowed(X, Y, Z)) continue;
            const double vol =
                static_cast<double>(X) * Y * Z * side_weight(X) * side_weight(Y) * side_weight(Z);
            const int aspect = std::max({X, Y, Z}) / std::min({X, Y, Z});
            if (const Choice c{{s, {X, Y, Z}}, vol, aspect}; better(c, best)) best = c;
        }
        return best;
    }

    // The box's cells leave the free air. Rows are independent (each sets its own cells and the
    // runs to its left): large boxes set them on all cores.
    void claim(const Partition& p) {
        const int rows = p.size[1] * p.size[2];
#pragma omp parallel for schedule(static) if (p.cells() >= kParallelClaimCells)
        for (int r = 0; r < rows; ++r) {
            const int j = p.origin[1] + r % p.size[1], k = p.origin[2] + r / p.size[1];
            const size_t row = g_.index(p.origin[0], j, k);
            for (int i = 0; i < p.size[0]; ++i) {
                free_[row + i] = 0;
                run_[row + i] = 0;
            }
            // Runs reaching into the box now stop at its face.
            for (int i = p.origin[0] - 1, d = 1; i >= 0; --i, ++d) {
                const size_t idx = g_.index(i, j, k);
                if (!free_[idx] || x_blocked(idx + 1)) break;
                run_[idx] = d;
            }
        }
    }

    const Grid& g_;
    int max_side_;
    bool avoid_thin_;
    std::vector<int> sides_;  // allowed sides, largest first
    std::vector<uint8_t> free_;
    std::vector<int> run_;
    // With thin faces: per cell, the cells along +x from it whose link to -y (-z) is open.
    const std::vector<uint8_t>* thin_ = nullptr;
    std::vector<uint16_t> open_y_, open_z_;
    std::vector<uint16_t> cube_;                // largest free cube per cell at the start
    std::vector<std::vector<size_t>> demoted_;  // per level: cells moved down into it
    // A batch: its cells in order, their cubes measured ahead (or kUnmeasured), how many boxes
    // had been claimed in the batch when each was measured, and those boxes.
    std::vector<size_t> cells_;
    std::vector<int> side_;
    std::vector<size_t> since_;
    std::vector<Partition> claimed_;
    std::vector<std::vector<size_t>> found_;  // per thread: a batch's cells, while gathered
};

}  // namespace

std::vector<Partition> find_boxes(const AirModel& air, int max_side, PartitionSides sides) {
    return BoxFinder(air, max_side, sides).run();
}

}  // namespace ardent
