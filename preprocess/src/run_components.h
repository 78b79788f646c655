// Face-connected components of the grid cells of one kind, found on all cores: the cells are cut
// into runs along x (rows of member cells no surface splits), each thread joins the runs of its
// own slab of z planes with a union-find, and one serial pass joins the slabs across their seams.
// A component is named by its smallest run index, whatever the number of threads or the order of
// the joins, so the result is the serial flood fill's, bit for bit, at any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ardent/preprocess/grid.h"

namespace ardent {

class RunComponents {
  public:
    // Components of the cells with flag[i] == kind. Two face neighbours connect unless `walls` of
    // the one on the +1 side has the axis's bit (a surface crosses between their centres).
    RunComponents(const Grid& g, const std::vector<uint8_t>& flag, uint8_t kind,
                  const std::vector<uint8_t>& walls);

    size_t runs() const { return x0_.size(); }
    // The run holding member cell `cell`.
    size_t run_at(size_t cell) const;
    // The component of run `r`: the smallest run index in it.
    size_t component(size_t r) const { return parent_[r]; }

    struct Extent {
        size_t cells = 0;
        bool on_edge = false;  // some cell lies on the grid's edge
    };
    // Per run index, the extent of the component it names (runs that name none: zero).
    std::vector<Extent> extents() const;
    // Sets out[i] to 1 on the cells of component c and 0 elsewhere (out holds the whole grid).
    Extent fill(size_t c, std::vector<uint8_t>& out) const;
    // Appends the cells of component c (row by row, x ascending).
    void cells_of(size_t c, std::vector<size_t>& out) const;

  private:
    void find_runs(const std::vector<uint8_t>& flag, uint8_t kind,
                   const std::vector<uint8_t>& walls);
    void join(const std::vector<uint8_t>& walls);
    void join_rows(size_t below, size_t row, int axis, const std::vector<uint8_t>& walls);
    size_t find(size_t r);
    bool touches_edge(size_t row, size_t r) const;
    void unite(size_t a, size_t b);

    Grid g_;
    size_t rows_ = 0;                // rows along x: dims[1] * dims[2], row = k * dims[1] + j
    std::vector<size_t> row_first_;  // first run of each row; rows_ + 1 entries
    std::vector<int32_t> x0_, x1_;   // run r covers x in [x0_[r], x1_[r]) of its row
    std::vector<size_t> parent_;     // union-find links, never to a larger index; then roots
};

}  // namespace ardent
