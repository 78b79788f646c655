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

double ambix_gain(size_t acn, Vec3 u) {
    const double x = u.x, y = u.y, z = u.z;
    const double s3 = std::sqrt(3.0), s15 = std::sqrt(15.0), s58 = std::sqrt(5.0 / 8.0),
                 s38 = std::sqrt(3.0 / 8.0);
    switch (acn) {
        case 0:
            return 1;
        case 1:
            return y;
        case 2:
            return z;
        case 3:
            return x;
        case 4:
            return s3 * x * y;
        case 5:
            return s3 * y * z;
        case 6:
            return 0.5 * (3 * z * z - 1);
        case 7:
            return s3 * x * z;
        case 8:
            return 0.5 * s3 * (x * x - y * y);
        case 9:
            return s58 * y * (3 * x * x - y * y);
        case 10:
            return s15 * x * y * z;
        case 11:
            return s38 * y * (5 * z * z - 1);
        case 12:
            return 0.5 * z * (5 * z * z - 3);
        case 13:
            return s38 * x * (5 * z * z - 1);
        case 14:
            return 0.5 * s15 * z * (x * x - y * y);
        case 15:
            return s58 * x * (x * x - 3 * y * y);
        default:
            throw std::out_of_range("ambix_gain: ACN channel above third order");
    }
}

}  // namespace ardent::geometric
