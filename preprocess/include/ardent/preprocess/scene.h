// The project model: a scene as described by an `ardent-scene/1` file (spec section 3) in plain
// C++. The CLI, the solvers and the editor all read and edit this one structure; the parser in
// scene_parser.h fills it and validates every value, so code that receives a Scene may trust it.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ardent/preprocess/vec.h"

namespace ardent {

// Octave-band centre frequencies (Hz) at which absorption may be given.
inline constexpr std::array<int, 6> kOctaveBandsHz = {125, 250, 500, 1000, 2000, 4000};

struct Material {
    std::string name;
    // Random-incidence absorption per octave band of kOctaveBandsHz; a single coefficient in the
    // file fills every band.
    std::array<double, kOctaveBandsHz.size()> absorption{};
    bool per_band = false;  // written per band in the file (kept so saving round-trips)
    double mean_absorption() const;
};

struct SurfaceRule {
    std::string pattern;  // glob over mesh material and node names
    std::string material;
};

struct Emitter {  // a source or a receiver
    std::string name;
    Vec3 position;
};

struct Geometry {
    // Either a mesh file (resolved to an absolute path) or a built-in box with a corner at 0.
    std::filesystem::path mesh;
    std::optional<Vec3> box;
    double scale = 1.0;
    char up = 'z';  // 'x', 'y' or 'z'
    int up_axis() const { return up - 'x'; }
};

struct SimulationSettings {
    std::string solver = "ard";   // "ard" | "fdtd"
    std::string device = "auto";  // "auto" | "cpu" | "cuda"
    double max_frequency = 1000.0;
    double duration = 1.0;
    std::optional<double> points_per_wavelength;  // default depends on the solver
    double speed_of_sound = 343.0;

    double effective_points_per_wavelength() const {
        return points_per_wavelength ? *points_per_wavelength : (solver == "fdtd" ? 10.0 : 2.6);
    }
    // Grid spacing h = c / (s f_max).
    double cell_size() const {
        return speed_of_sound / (effective_points_per_wavelength() * max_frequency);
    }
};

struct Scene {
    std::filesystem::path file;  // where it was read from (empty when built in memory)
    std::string name;
    Geometry geometry;
    std::vector<Material> materials;
    std::vector<SurfaceRule> surfaces;  // order as written: the first match wins
    std::vector<Emitter> sources;
    std::vector<Emitter> receivers;
    int listener_grid_every = 0;  // 0: no listener grid
    SimulationSettings simulation;
    int output_sample_rate = 48000;

    int material_index(const std::string& material_name) const;  // -1 if absent
    // Scene file name for messages ("scene.json" or "<memory>").
    std::string display_name() const;
};

}  // namespace ardent
