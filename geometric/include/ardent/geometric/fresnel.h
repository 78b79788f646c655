// Sound that gets round a small obstacle (docs/full-band.md, "Diffraction round small
// obstacles"). Geometric acoustics blocks a path wholly or not at all; a wave is blocked only by
// what fills its first Fresnel zone, which at low frequencies is wider than a table, a chair or a
// loudspeaker cabinet. A blocked straight segment keeps, per band, the share of its first Fresnel
// zone through which a path bent at the zone stays clear: the zone is the disk across the segment
// where it is first blocked, of radius sqrt(lambda s (d - s) / d), sampled at fixed points. A
// segment that is not blocked keeps everything (its lit side is left as geometric acoustics has
// it). A reflection likewise keeps the share of its zone on the reflecting plane that the plane's
// triangles cover, so that it fades across a free edge (a table's, a panel's) instead of
// switching off there.
#pragma once

#include <optional>

#include "ardent/geometric/bands.h"
#include "ardent/geometric/room.h"
#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

// Points the zone is sampled at (a sunflower spiral, even over the disk's area).
inline constexpr int kFresnelSamples = 32;

// Pressure factor per band for the segment a -> b: 1 when nothing lies between them, else the
// clear share of each band's first Fresnel zone (0 to 1).
BandValues fresnel_share(const Room& room, Vec3 a, Vec3 b, double speed_of_sound);

// A specular reflection at `at` on `plane`, reached along the unit direction `dir`, `s` metres
// from one end of a path `d` metres long (the whole path, unfolded).
struct ReflectionZone {
    // Per band, the share of the first Fresnel zone, projected along the path onto the plane,
    // that the plane's triangles cover, out of the part that lies in the air on the path's side:
    // a sample beyond a concave corner (behind the next wall) does not count, so image sources
    // in a box stay exact, while one beyond a free edge (past a table's edge) does.
    BandValues share{};
    bool centre_on_plane = false;  // the reflection point itself lies on the plane's triangles
    uint32_t triangle = 0;  // the triangle under the reflection point, or the nearest covered one
};
// Nothing when no sample of any band lies on the plane's triangles, or when `centre_required`
// and the reflection point does not.
std::optional<ReflectionZone> reflection_zone(const Room& room, const Plane& plane, Vec3 at,
                                              Vec3 dir, double s, double d, double speed_of_sound,
                                              bool centre_required);

}  // namespace ardent::geometric
