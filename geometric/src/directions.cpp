#include "ardent/geometric/directions.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <vector>

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

// The ray tracer asks for the nearest direction of every arrival it bins (a dozen per reflection),
// and testing all 32 was a quarter of its time. A cube map over the sphere lists, per cell, the
// directions that can be nearest anywhere in it: with c the cell's centre direction and rho the
// largest angle from c to the cell (at a corner: the cell is a convex spherical quadrilateral),
// a direction at angle theta from c can be nearest only if theta <= theta_best + 2 rho. Tested
// in index order with the same strict comparison, the candidates give exactly the full search's
// answer, ties included.
class CubeLookup {
  public:
    static constexpr int kCells = 8;  // per face side

    CubeLookup() {
        const auto& all = directions();
        for (int face = 0; face < 6; ++face)
            for (int j = 0; j < kCells; ++j)
                for (int i = 0; i < kCells; ++i) {
                    const auto corner = [&](double a, double b) {
                        return on_face(face, -1 + 2 * a / kCells, -1 + 2 * b / kCells);
                    };
                    const Vec3 c = corner(i + 0.5, j + 0.5);
                    double rho = 0;
                    for (const Vec3 k :
                         {corner(i, j), corner(i + 1, j), corner(i, j + 1), corner(i + 1, j + 1)})
                        rho = std::max(rho, angle(c, k));
                    double best = 4;
                    for (const Vec3& d : all)
                        best = std::min(best, angle(c, d));
                    auto& list = cells_[static_cast<size_t>((face * kCells + j) * kCells + i)];
                    for (size_t d = 0; d < kDirections; ++d)
                        if (angle(c, all[d]) <= best + 2 * rho + 1e-9)
                            list.push_back(static_cast<uint8_t>(d));
                }
    }

    const std::vector<uint8_t>& candidates(Vec3 u) const {
        const double ax = std::abs(u.x), ay = std::abs(u.y), az = std::abs(u.z);
        int face;
        double s, t;
        if (ax >= ay && ax >= az) {
            face = u.x >= 0 ? 0 : 1;
            s = u.y / ax;
            t = u.z / ax;
        } else if (ay >= az) {
            face = u.y >= 0 ? 2 : 3;
            s = u.z / ay;
            t = u.x / ay;
        } else {
            face = u.z >= 0 ? 4 : 5;
            s = u.x / az;
            t = u.y / az;
        }
        const auto cell = [](double v) {
            return std::clamp(static_cast<int>((v + 1) * 0.5 * kCells), 0, kCells - 1);
        };
        return cells_[static_cast<size_t>((face * kCells + cell(t)) * kCells + cell(s))];
    }

  private:
    // The unit vector through (s, t) in [-1, 1]^2 of a face, as candidates() reads it.
    static Vec3 on_face(int face, double s, double t) {
        const double sign = face % 2 ? -1.0 : 1.0;
        Vec3 v;
        switch (face / 2) {
            case 0:
                v = {sign, s, t};
                break;
            case 1:
                v = {t, sign, s};
                break;
            default:
                v = {s, t, sign};
                break;
        }
        return v * (1.0 / norm(v));
    }
    static double angle(Vec3 a, Vec3 b) { return std::acos(std::clamp(dot(a, b), -1.0, 1.0)); }

    std::array<std::vector<uint8_t>, 6 * kCells * kCells> cells_;
};

}  // namespace

Vec3 direction(size_t d) {
    return directions().at(d);
}

size_t nearest_direction(Vec3 unit) {
    static const CubeLookup lookup;
    const auto& all = directions();
    size_t best = 0;
    double best_dot = -2;
    for (const uint8_t d : lookup.candidates(unit))
        if (const double c = dot(all[d], unit); c > best_dot) {
            best_dot = c;
            best = d;
        }
    return best;
}

}  // namespace ardent::geometric
