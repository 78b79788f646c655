// Where sound arrives from, for ambisonic and binaural rendering of the geometric part: a fixed
// set of arrival directions spread evenly over the sphere (the ray tracer bins its energy by the
// nearest of them), and the real spherical harmonics of AmbiX (ACN channel order, SN3D
// normalisation) up to third order, which encode a plane wave from a direction into ambisonic
// channels. Directions are unit vectors in the model's axes pointing from the receiver towards
// where the sound comes from.
#pragma once

#include <cstddef>

#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

// 32 directions: a spherical Fibonacci lattice (nearest-direction cells of equal area within 6 %).
// Equal energies from all 32 give every channel up to third order its diffuse-field mean square
// within 3 %.
inline constexpr size_t kDirections = 32;
Vec3 direction(size_t d);
size_t nearest_direction(Vec3 unit);

inline constexpr int kMaxAmbisonicOrder = 3;
inline constexpr size_t ambisonic_channels(int order) {
    return static_cast<size_t>((order + 1) * (order + 1));
}
// ACN channel `acn` (0 .. 15) of a plane wave of unit amplitude from `unit`, SN3D: W = 1 and
// each order n's channels have a mean square of 1 / (2n + 1) over the sphere.
double ambix_gain(size_t acn, Vec3 unit);

}  // namespace ardent::geometric
