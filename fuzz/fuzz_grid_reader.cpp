// The listener-grid reader (HDF5, grid/<source>.h5) on any file: opening checks the whole
// layout, then the first and last points' IRs, gradients and lattice neighbours are read as the
// audition does, and for a full-band grid (format 4) the first point's geometric part is
// synthesised and joined as `ardent auralize` does. Each step returns or throws InputError.
#include <cstddef>
#include <cstdint>

#include "ardent/auralize/ir_grid.h"
#include "ardent/pipeline/grid_full_band.h"
#include "ardent/preprocess/errors.h"
#include "input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const ardent::fuzz::InputFile file(data, size, ".h5");
    try {
        const ardent::auralize::IrGrid grid(file.path());
        for (const size_t point : {size_t{0}, grid.size() - 1}) {
            (void)grid.ir(point);
            if (grid.has_gradient()) {
                (void)grid.gradient(point);
                (void)grid.gradient_kind(point);
            }
            for (int axis = 0; axis < 3; ++axis)
                for (const int dir : {-1, 1})
                    (void)grid.neighbour(point, axis, dir);
            (void)grid.nearest(grid.positions()[point]);
        }
        // Up to 2 s of IR (a longer one is a legitimate file whose synthesis takes long).
        if (grid.geometric() && static_cast<double>(grid.samples()) <= 2 * grid.sample_rate())
            (void)ardent::pipeline::grid_point_ir(grid, 0, grid.ir(0), 8000);
    } catch (const ardent::InputError&) {
    }
    return 0;
}
