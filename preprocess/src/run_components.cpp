#include "run_components.h"

#include <algorithm>
#include <numeric>

#include "thread_share.h"

namespace ardent {

RunComponents::RunComponents(const Grid& g, const std::vector<uint8_t>& flag, uint8_t kind,
                             const std::vector<uint8_t>& walls)
    : g_(g), rows_(static_cast<size_t>(g.dims[1]) * static_cast<size_t>(g.dims[2])) {
    find_runs(flag, kind, walls);
    join(walls);
}

// Runs of one row: a run starts at a member cell whose -x neighbour is no member or lies behind a
// surface. Counted first, then written, so that each row's runs sit at a fixed place.
void RunComponents::find_runs(const std::vector<uint8_t>& flag, uint8_t kind,
                              const std::vector<uint8_t>& walls) {
    const int nx = g_.dims[0];
    const long rows = static_cast<long>(rows_);
    auto scan = [&](size_t row, auto&& emit) {
        const size_t base = row * static_cast<size_t>(nx);
        int start = -1;
        for (int x = 0; x <= nx; ++x) {
            const size_t i = base + static_cast<size_t>(x);
            const bool in = x < nx && flag[i] == kind;
            if (start >= 0 && (!in || (walls[i] & 1))) {
                emit(start, x);
                start = -1;
            }
            if (in && start < 0) start = x;
        }
    };
    row_first_.assign(rows_ + 1, 0);
#pragma omp parallel for schedule(static)
    for (long r = 0; r < rows; ++r) {
        size_t n = 0;
        scan(static_cast<size_t>(r), [&](int, int) { ++n; });
        row_first_[static_cast<size_t>(r) + 1] = n;
    }
    std::partial_sum(row_first_.begin(), row_first_.end(), row_first_.begin());
    x0_.resize(row_first_.back());
    x1_.resize(row_first_.back());
#pragma omp parallel for schedule(static)
    for (long r = 0; r < rows; ++r) {
        size_t at = row_first_[static_cast<size_t>(r)];
        scan(static_cast<size_t>(r), [&](int lo, int hi) {
            x0_[at] = lo;
            x1_[at++] = hi;
        });
    }
}

// Each thread joins the rows of its slab of z planes (their runs are a range of indices no other
// thread touches); the planes where slabs meet are joined afterwards, serially.
void RunComponents::join(const std::vector<uint8_t>& walls) {
    const int ny = g_.dims[1], nz = g_.dims[2];
    parent_.resize(runs());
    std::iota(parent_.begin(), parent_.end(), size_t{0});
    std::vector<uint8_t> seam(static_cast<size_t>(nz), 0);
#pragma omp parallel
    {
        const auto [k_lo, k_hi] = thread_share(nz);
        if (k_lo > 0 && k_lo < k_hi) seam[static_cast<size_t>(k_lo)] = 1;
        for (int k = k_lo; k < k_hi; ++k)
            for (int j = 0; j < ny; ++j) {
                const size_t row =
                    static_cast<size_t>(k) * static_cast<size_t>(ny) + static_cast<size_t>(j);
                if (j > 0) join_rows(row - 1, row, 1, walls);
                if (k > k_lo) join_rows(row - static_cast<size_t>(ny), row, 2, walls);
            }
    }
    for (int k = 1; k < nz; ++k) {
        if (!seam[static_cast<size_t>(k)]) continue;
        for (int j = 0; j < ny; ++j) {
            const size_t row =
                static_cast<size_t>(k) * static_cast<size_t>(ny) + static_cast<size_t>(j);
            join_rows(row - static_cast<size_t>(ny), row, 2, walls);
        }
    }
    // Links only point to smaller indices, so one ascending pass turns every link into its root.
    for (size_t r = 0; r < parent_.size(); ++r)
        parent_[r] = parent_[parent_[r]];
}

// Joins the runs of `row` with those of the row one step below it along `axis` that they overlap
// where no surface separates the two.
void RunComponents::join_rows(size_t below, size_t row, int axis,
                              const std::vector<uint8_t>& walls) {
    const size_t base = row * static_cast<size_t>(g_.dims[0]);
    const auto bit = static_cast<uint8_t>(1 << axis);
    size_t a = row_first_[below], b = row_first_[row];
    const size_t a_end = row_first_[below + 1], b_end = row_first_[row + 1];
    while (a < a_end && b < b_end) {
        const int lo = std::max(x0_[a], x0_[b]), hi = std::min(x1_[a], x1_[b]);
        for (int x = lo; x < hi; ++x)
            if (!(walls[base + static_cast<size_t>(x)] & bit)) {
                unite(a, b);
                break;
            }
        if (x1_[a] < x1_[b])
            ++a;
        else
            ++b;
    }
}

size_t RunComponents::find(size_t r) {
    while (parent_[r] != r) {
        parent_[r] = parent_[parent_[r]];  // path halving keeps links pointing down
        r = parent_[r];
    }
    return r;
}

void RunComponents::unite(size_t a, size_t b) {
    a = find(a);
    b = find(b);
    if (a < b) parent_[b] = a;
    if (b < a) parent_[a] = b;
}

size_t RunComponents::run_at(size_t cell) const {
    const size_t nx = static_cast<size_t>(g_.dims[0]);
    const size_t row = cell / nx;
    const auto x = static_cast<int32_t>(cell % nx);
    const auto first = x0_.begin() + static_cast<std::ptrdiff_t>(row_first_[row]);
    const auto last = x0_.begin() + static_cast<std::ptrdiff_t>(row_first_[row + 1]);
    return static_cast<size_t>(std::upper_bound(first, last, x) - x0_.begin()) - 1;
}

bool RunComponents::touches_edge(size_t row, size_t r) const {
    const size_t j = row % static_cast<size_t>(g_.dims[1]);
    const size_t k = row / static_cast<size_t>(g_.dims[1]);
    return x0_[r] == 0 || x1_[r] == g_.dims[0] || j == 0 ||
           j + 1 == static_cast<size_t>(g_.dims[1]) || k == 0 ||
           k + 1 == static_cast<size_t>(g_.dims[2]);
}

std::vector<RunComponents::Extent> RunComponents::extents() const {
    std::vector<Extent> out(runs());
    for (size_t row = 0; row < rows_; ++row)
        for (size_t r = row_first_[row]; r < row_first_[row + 1]; ++r) {
            Extent& e = out[parent_[r]];
            e.cells += static_cast<size_t>(x1_[r] - x0_[r]);
            e.on_edge = e.on_edge || touches_edge(row, r);
        }
    return out;
}

RunComponents::Extent RunComponents::fill(size_t c, std::vector<uint8_t>& out) const {
    const size_t nx = static_cast<size_t>(g_.dims[0]);
    size_t cells = 0;
    bool edge = false;
    const long rows = static_cast<long>(rows_);
#pragma omp parallel for schedule(static) reduction(+ : cells) reduction(|| : edge)
    for (long row = 0; row < rows; ++row) {
        const size_t base = static_cast<size_t>(row) * nx;
        std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(base), nx, uint8_t{0});
        for (size_t r = row_first_[static_cast<size_t>(row)];
             r < row_first_[static_cast<size_t>(row) + 1]; ++r) {
            if (parent_[r] != c) continue;
            std::fill(out.begin() + static_cast<std::ptrdiff_t>(base + x0_[r]),
                      out.begin() + static_cast<std::ptrdiff_t>(base + x1_[r]), uint8_t{1});
            cells += static_cast<size_t>(x1_[r] - x0_[r]);
            edge = edge || touches_edge(static_cast<size_t>(row), r);
        }
    }
    return {cells, edge};
}

void RunComponents::cells_of(size_t c, std::vector<size_t>& out) const {
    const size_t nx = static_cast<size_t>(g_.dims[0]);
    for (size_t row = 0; row < rows_; ++row)
        for (size_t r = row_first_[row]; r < row_first_[row + 1]; ++r)
            if (parent_[r] == c)
                for (int32_t x = x0_[r]; x < x1_[r]; ++x)
                    out.push_back(row * nx + static_cast<size_t>(x));
}

}  // namespace ardent
