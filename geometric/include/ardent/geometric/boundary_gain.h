// A source or a receiver close to a surface, in the diffuse field (docs/full-band.md, "Sources
// and receivers near surfaces"). A monopole a distance h in front of a reflecting plane radiates
// P0 (1 + R sin(2kh) / (2kh)) at wavenumber k (its image's field does work on it), and a
// receiver there hears a diffuse field's mean square pressure raised by the same factor
// (Waterhouse's interference near boundaries). Rays carry energy, not phase: they miss both. The
// gain sums the term over the planes whose foot point from the point lies on their triangles in
// plain view, with R the specular reflection factor the image sources use.
#pragma once

#include "ardent/geometric/bands.h"
#include "ardent/geometric/room.h"
#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

// The diffuse energy's factor per band at `point` (a source's radiated power, or a receiver's
// mean square pressure), 1 far from every surface; at least kLeastBoundaryGain.
inline constexpr double kLeastBoundaryGain = 0.25;
BandValues boundary_gain(const Room& room, Vec3 point, double speed_of_sound);

}  // namespace ardent::geometric
