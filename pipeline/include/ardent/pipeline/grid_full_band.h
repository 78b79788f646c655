// The listener grid over the whole band (docs/full-band.md, "The listener grid"): a full-band
// run stores the grid's geometric part compactly (image-source paths per point, energy envelopes
// and net arrival directions per cell of a coarser lattice; auralize::GridGeometric), and a reader
// synthesises a listener's IR above the crossover from it and joins it to the wave solver's
// below, as simulate does for the receivers. Both `ardent auralize` and the editor listen
// through this.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ardent/auralize/ambisonics.h"
#include "ardent/auralize/ir_grid.h"

namespace ardent::pipeline {

// The geometric part at a blend of grid points (IrGrid::trilinear's weights, or one point with
// weight 1) as first-order AmbiX (W, Y, Z, X; SN3D) in the model's axes, at `sample_rate` for
// `samples`: the points' image-source paths weighted by the blend, and the noise shaped to the
// blend of their cells' envelopes. The noise is seeded by `seed` (equal inputs give equal IRs).
// std::invalid_argument when the grid has no geometric part.
std::array<std::vector<float>, 4> grid_geometric_foa(
    const auralize::IrGrid& grid, const std::vector<auralize::IrGrid::Weight>& blend,
    double sample_rate, size_t samples, uint64_t seed = 1);

// Grid point `point`'s full-band pressure IR at `sample_rate`: its stored row `row` (the wave
// band, at the grid's rate) resampled, joined above the crossover to the W channel that
// grid_geometric_foa gives for the point alone, with the seed join_grid_full_band uses there:
// the W that `ardent auralize` renders at that grid point. The row alone (resampled) for a grid
// without a geometric part.
std::vector<float> grid_point_ir(const auralize::IrGrid& grid, size_t point,
                                 const std::vector<float>& row, double sample_rate);

// `foa` (the grid's wave band at the listener, in the listener's frame, at foa.sample_rate) made
// full band: each channel below the grid's crossover, the geometric part turned to `orientation`
// above it, over foa.blend. Returns the crossover (Hz); a grid without a geometric part leaves
// `foa` as it is and returns 0.
double join_grid_full_band(const auralize::IrGrid& grid, auralize::FoaIr& foa,
                           const auralize::Orientation& orientation);

}  // namespace ardent::pipeline
