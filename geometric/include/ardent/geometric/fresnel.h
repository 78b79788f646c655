// Sound that gets round a small obstacle (docs/full-band.md, "Diffraction round small
// obstacles"). Geometric acoustics blocks a path wholly or not at all; a wave is blocked only by
// what fills its first Fresnel zone, which at low frequencies is wider than a table, a chair or a
// loudspeaker cabinet. A blocked straight segment keeps, per band, the share of its first Fresnel
// zone through which a path bent at the zone stays clear: the zone is the disk across the segment
// where it is first blocked, of radius sqrt(lambda s (d - s) / d), sampled at fixed points. A
// segment that is not blocked keeps everything (its lit side is left as geometric acoustics has
// it).
#pragma once

#include "ardent/geometric/bands.h"
#include "ardent/geometric/room.h"
#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

// Points the zone is sampled at (a sunflower spiral, even over the disk's area).
inline constexpr int kFresnelSamples = 32;

// Pressure factor per band for the segment a -> b: 1 when nothing lies between them, else the
// clear share of each band's first Fresnel zone (0 to 1).
BandValues fresnel_share(const Room& room, Vec3 a, Vec3 b, double speed_of_sound);

}  // namespace ardent::geometric
