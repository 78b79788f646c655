// The real spherical harmonics of AmbiX (ACN channel order, SN3D normalisation) up to third
// order: the gains that encode a plane wave arriving from a direction into ambisonic channels.
// Shared by the geometric engine (encoding arrival directions) and the auralization library
// (turning ambisonic IRs to a listener and decoding them binaurally), so that both use one
// convention. Directions are unit vectors pointing from the listener towards the source.
#pragma once

#include <cstddef>

#include "ardent/preprocess/vec.h"

namespace ardent {

inline constexpr int kMaxAmbisonicOrder = 3;
inline constexpr size_t ambisonic_channels(int order) {
    return static_cast<size_t>((order + 1) * (order + 1));
}
// The order n of ACN channel `acn` (n^2 <= acn < (n + 1)^2).
int ambisonic_order_of_channel(size_t acn);

// ACN channel `acn` (0 .. 15) of a plane wave of unit amplitude from `unit`, SN3D: W = 1 and each
// order n's channels have a mean square of 1 / (2n + 1) over the sphere. std::out_of_range above
// third order.
double ambix_gain(size_t acn, Vec3 unit);

}  // namespace ardent
