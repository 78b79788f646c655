// Rigid rectangular rooms drawn from a seed, their scenes and their exact IRs (issue 19), free of
// GoogleTest so that bench/ can use them (rigid_box.h judges them in the tests): sides of 9-40 of
// ARD's cells (so most are not powers of two and power-of-two sides leave thin slabs; FDTD solves
// the same rooms on its own grid), source and receiver at least 2 cells from every wall,
// max_frequency in 300-1000 Hz, air absorption off. The reference is the exact image-source sum of
// the solver's own excitation at the output rate, with the IR convention of docs/output-format.md
// (advanced by the excitation's delay, scaled by (1/dt) / sample_rate).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/scene.h"
#include "ardent/solvers/excitation.h"
#include "image_source.h"

namespace ardent::test {

struct RigidBox {
    std::uint32_t seed = 0;
    std::array<int, 3> cells{};               // sides in cells (exactly n h)
    std::array<int, 3> source{}, receiver{};  // cell indices from the box corner
    double f_max = 500;
    std::string solver = "ard";
    std::string device = "cpu";
    std::string extra_simulation;  // more "simulation" keys, e.g. R"(, "partition_sides": "...")"
    std::string extra_top;         // more top-level keys, each followed by a comma
    double duration = 0.5;
    double points_per_wavelength = 0;  // of the solver's grid; 0: the solver's default
};

// The box's unit: ARD's cell at f_max, whichever solver runs, so both solve the same rooms (FDTD
// on its own finer grid, with the source and receiver in the cells holding these positions).
inline double rigid_box_h(const RigidBox& b) {
    SimulationSettings s;
    s.solver = "ard";
    s.max_frequency = b.f_max;
    return s.cell_size();
}

// The box's sides in metres: `cells` of the unit, rounded to whole cells of the solver's grid
// (walls lie on cell faces, so a side that is not a whole number of cells would be another room).
inline std::array<double, 3> rigid_box_sides(const RigidBox& b) {
    SimulationSettings s;
    s.solver = b.solver;
    s.max_frequency = b.f_max;
    if (b.points_per_wavelength > 0) s.points_per_wavelength = b.points_per_wavelength;
    const double h = s.cell_size();
    std::array<double, 3> sides{};
    for (int a = 0; a < 3; ++a)
        sides[a] = std::round(b.cells[a] * rigid_box_h(b) / h) * h;
    return sides;
}

inline RigidBox draw_rigid_box(std::uint32_t seed, const std::string& solver = "ard") {
    std::mt19937 rng(seed);
    auto uniform_int = [&](int lo, int hi) {
        return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    RigidBox b;
    b.seed = seed;
    b.solver = solver;
    // The band judged ends at 0.8 f_max <= 800 Hz: 8 kHz keeps the image-source reference cheap.
    b.extra_top = R"("output": {"sample_rate": 8000},)";
    for (int& n : b.cells)
        n = uniform_int(9, 40);
    b.f_max = std::uniform_real_distribution<double>(300, 1000)(rng);
    b.f_max = std::round(b.f_max);
    // At least 2 cells from every wall, and apart by at least a quarter of the box's diagonal so
    // the direct sound does not dominate the error.
    const double diag = std::hypot(b.cells[0], b.cells[1], b.cells[2]);
    for (int tries = 0; tries < 1000; ++tries) {
        for (int a = 0; a < 3; ++a) {
            b.source[a] = uniform_int(2, b.cells[a] - 3);
            b.receiver[a] = uniform_int(2, b.cells[a] - 3);
        }
        const double d = std::hypot(b.source[0] - b.receiver[0], b.source[1] - b.receiver[1],
                                    b.source[2] - b.receiver[2]);
        if (d >= 0.25 * diag) break;
    }
    return b;
}

inline std::string describe(const RigidBox& b) {
    std::ostringstream s;
    s << "seed " << b.seed << ": " << b.solver << " " << b.cells[0] << "x" << b.cells[1] << "x"
      << b.cells[2] << " cells, f_max " << b.f_max << " Hz, source cell (" << b.source[0] << ", "
      << b.source[1] << ", " << b.source[2] << "), receiver cell (" << b.receiver[0] << ", "
      << b.receiver[1] << ", " << b.receiver[2] << ")";
    return s.str();
}

inline std::string rigid_box_scene(const RigidBox& b) {
    const double h = rigid_box_h(b);
    const auto sides = rigid_box_sides(b);
    std::ostringstream s;
    s.precision(17);
    auto pos = [&](const std::array<int, 3>& c) {
        std::ostringstream p;
        p.precision(17);
        p << "[" << (c[0] + 0.5) * h << ", " << (c[1] + 0.5) * h << ", " << (c[2] + 0.5) * h << "]";
        return p.str();
    };
    s << R"({"format": "ardent-scene/1", "name": "rigid box )" << b.seed << R"(",)" << b.extra_top
      << R"( "geometry": {"box": [)" << sides[0] << ", " << sides[1] << ", " << sides[2] << "]},"
      << R"( "materials": {"rigid": {"absorption": 0.0}}, "surfaces": {"*": "rigid"},)"
      << R"( "sources": [{"name": "S", "position": )" << pos(b.source) << "}],"
      << R"( "receivers": [{"name": "R", "position": )" << pos(b.receiver) << "}],"
      << R"( "air": {"absorption": false},)"
      << R"( "simulation": {"band": "wave", "solver": ")" << b.solver << R"(", "device": ")"
      << b.device << R"(", "max_frequency": )" << b.f_max << R"(, "duration": )" << b.duration
      << R"(, "speed_of_sound": 343)";
    if (b.points_per_wavelength > 0)
        s << R"(, "points_per_wavelength": )" << b.points_per_wavelength;
    s << b.extra_simulation << "}}";
    return s.str();
}

// The exact IR at the output rate, in the file's convention: the image-source sum of the
// excitation G, sample n at time n / fs after the emission, times (1/dt) / fs.
inline std::vector<double> rigid_box_reference(const RigidBox& b, const nlohmann::json& result,
                                               double fs, size_t samples) {
    const double dt = result["solver"]["dt"].get<double>();
    const Excitation g = Excitation::for_band(result["excitation"]["f_max"].get<double>(), dt);
    ImageSourceSetup is;
    const auto sides = rigid_box_sides(b);
    is.box = {sides[0], sides[1], sides[2]};
    for (int i = 0; i < 3; ++i) {
        is.source[i] = result["sources"][0]["cell_centre"][i].get<double>();
        is.receiver[i] = result["receivers"][0]["cell_centre"][i].get<double>();
    }
    is.c = 343.0;
    is.signal = [g](double t) { return g(t); };
    is.signal_length = 2 * g.delay();
    is.dt = 1 / fs;
    is.samples = samples;
    is.t0 = g.delay();
    std::vector<double> p = image_source_ir(is).p;
    for (double& x : p)
        x *= (1 / dt) / fs;
    return p;
}

}  // namespace ardent::test
