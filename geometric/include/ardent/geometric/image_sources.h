// The early specular reflections by image sources (docs/full-band.md, "Image sources"). Which
// sequences of planes can form a path is found by tracing rays from the source specularly (a
// room of many planes has far too many sequences to try them all); each sequence is then an
// image source, checked for every receiver by casting the path back from the receiver through
// the planes' triangles (its visibility) and kept with its length and its reflection factors.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ardent/geometric/bands.h"
#include "ardent/geometric/room.h"
#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

struct SpecularPath {
    double length = 0;  // metres, source to receiver along the path
    int order = 0;      // reflections (0: the direct sound)
    // Pressure factor per band: the product over the reflections of sqrt((1 - a)(1 - s)), the
    // specular share of the reflected energy (the scattered share is the ray tracer's), times
    // each reflection's share of its Fresnel zone on the plane and what gets round obstacles on a
    // blocked segment (fresnel.h).
    BandValues factor{};
    Vec3 direction;  // unit vector from the receiver towards where the sound arrives from
};

// Plane sequences (plane ids, first reflection first) up to `max_order` reflections that `rays`
// specular rays from `source` (directions from `seed`) followed; sorted, without duplicates.
std::vector<std::vector<uint32_t>> candidate_sequences(const Room& room, Vec3 source, int max_order,
                                                       size_t rays, uint64_t seed, int threads);

// The valid specular paths from `source` to `receiver`: the direct sound and every candidate
// whose reflection points lie on its planes, or in the air within a Fresnel zone of their edges,
// sorted by length; a path found by two sequences (coplanar planes kept apart) once. Each
// reflection keeps, per band, the share of its zone the plane covers, and a segment that
// something blocks what gets round the obstacle (fresnel.h); a path with nothing left is left
// out.
std::vector<SpecularPath> specular_paths(const Room& room, Vec3 source, Vec3 receiver,
                                         const std::vector<std::vector<uint32_t>>& candidates,
                                         double speed_of_sound);

}  // namespace ardent::geometric
