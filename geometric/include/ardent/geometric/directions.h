// Where sound arrives from, for ambisonic and binaural rendering of the geometric part: a fixed
// set of arrival directions spread evenly over the sphere (the ray tracer bins its energy by the
// nearest of them), and the real spherical harmonics of AmbiX (ACN channel order, SN3D
// normalisation) up to third order, which encode a plane wave from a direction into ambisonic
// channels. Directions are unit vectors in the model's axes pointing from the receiver towards
// where the sound comes from.
#pragma once

#include <cstddef>

#include "ardent/preprocess/ambix.h"
#include "ardent/preprocess/vec.h"

namespace ardent::geometric {

// 32 directions: a spherical Fibonacci lattice (nearest-direction cells of equal area within 6 %).
// Equal energies from all 32 give every channel up to third order its diffuse-field mean square
// within 3 %.
inline constexpr size_t kDirections = 32;
Vec3 direction(size_t d);
size_t nearest_direction(Vec3 unit);

// The AmbiX convention is preprocess's (ambix.h), shared with the auralization library.
inline constexpr int kMaxAmbisonicOrder = ardent::kMaxAmbisonicOrder;
inline constexpr size_t ambisonic_channels(int order) {
    return ardent::ambisonic_channels(order);
}
using ardent::ambix_gain;  // one function: a Vec3 finds it by argument-dependent lookup too

}  // namespace ardent::geometric
