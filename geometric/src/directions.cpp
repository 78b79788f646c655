#include "ardent/geometric/directions.h"

#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace ardent::geometric {
namespace {

std::array<Vec3, kDirections> make_directions() {
    std::array<Vec3, kDirections> out{};
    const double golden = std::numbers::pi * (3.0 - std::sqrt(5.0));
    for (size_t d = 0; d < kDirections; ++d) {
        // Cell centres in z, so the poles are not over-represented.
        const double z = 1.0 - (2.0 * static_cast<double>(d) + 1.0) / kDirections;
        const double r = std::sqrt(1.0 - z * z), phi = golden * static_cast<double>(d);
        out[d] = {r * std::cos(phi), r * std::sin(phi), z};
    }
    return out;
}

const std::array<Vec3, kDirections>& directions() {
    static const std::array<Vec3, kDirections> all = make_directions();
    return all;
}

}  // namespace

Vec3 direction(size_t d) {
    return directions().at(d);
}

size_t nearest_direction(Vec3 unit) {
    const auto& all = directions();
    size_t best = 0;
    double best_dot = -2;
    for (size_t d = 0; d < kDirections; ++d)
        if (const double c = dot(all[d], unit); c > best_dot) {
            best_dot = c;
            best = d;
        }
    return best;
}

}  // namespace ardent::geometric
