#include "ardent/preprocess/grid.h"

namespace ardent {

Grid make_grid(const Box3& bounds, double h, int pad) {
    Grid g;
    g.h = h;
    for (int a = 0; a < 3; ++a) {
        g.origin[a] = bounds.lo[a] - pad * h;
        g.dims[a] = cells_for_extent(bounds.hi[a] - bounds.lo[a], h) + 2 * pad;
    }
    return g;
}

}  // namespace ardent
