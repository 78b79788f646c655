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

#include "ardent/preprocess/atmosphere.h"
#include "ardent/preprocess/vec.h"

namespace ardent {

// Octave-band centre frequencies (Hz) the editor and the bundled library show.
inline constexpr std::array<int, 6> kOctaveBandsHz = {125, 250, 500, 1000, 2000, 4000};

// The scattering coefficient of a material that gives none (docs/materials.md, "Scattering"):
// the geometric engine's share of reflected energy sent in a diffuse (Lambert) direction.
inline constexpr double kDefaultScattering = 0.4;

// One band of a material's absorption: its centre frequency and its random-incidence
// (statistical, Sabine) coefficient.
struct AbsorptionBand {
    double hz = 0;
    double alpha = 0;
    bool operator==(const AbsorptionBand&) const = default;
};

// Lab data a material may be given as instead of random-incidence absorption (docs/materials.md,
// "Lab data"): normal-incidence absorption, or the surface impedance normalised by rho c with the
// e^{+j omega t} convention (a mass-like wall has a positive imaginary part). The parser converts
// each band to the random-incidence coefficient such a locally reacting wall has, which the wall
// fit then matches; the values given are kept so that saving writes them back.
struct MaterialLabData {
    enum class Kind { NormalAbsorption, Impedance };
    Kind kind = Kind::NormalAbsorption;
    bool per_band = false;
    std::vector<double> hz;                        // band centres (unused when !per_band)
    std::vector<std::pair<double, double>> value;  // alpha_n (first), or Re z and Im z
    bool operator==(const MaterialLabData&) const = default;
};

struct Material {
    std::string name;
    std::optional<MaterialLabData> lab;  // what the file gave, when it was not "absorption"
    // Random-incidence absorption: one coefficient (per_band false: a single entry, its hz unused)
    // or bands at any centre frequencies (octaves 63-8000 Hz, third octaves, ...), ascending.
    std::vector<AbsorptionBand> absorption{{0, 0}};
    bool per_band = false;  // written per band in the file (kept so saving round-trips)

    // The coefficient at frequency hz: interpolated linearly in log frequency between the given
    // bands, and the end bands' values beyond them.
    double absorption_at(double hz) const;
    double mean_absorption() const;  // over the given bands
    double max_absorption() const;
    // Set the random-incidence absorption (and drop any lab data).
    void set_uniform(double alpha);  // one coefficient for every frequency
    void set_bands(const std::vector<AbsorptionBand>& bands);  // sorts them

    // Scattering coefficient (ISO 17497-1) per band, used by the geometric engine only: empty
    // for the default kDefaultScattering, else one entry (per-band false) or bands, ascending.
    std::vector<AbsorptionBand> scattering;
    bool scattering_per_band = false;
    // Interpolated like absorption_at; kDefaultScattering when none was given.
    double scattering_at(double hz) const;
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
    // ARD's partition sides: "smooth" (2^a 3^b 5^c, no avoidable thin slabs) or "power_of_two".
    std::string partition_sides = "smooth";
    // "full": the wave solver's IRs below the crossover, the geometric engine's above it, one IR
    // up to output.sample_rate / 2 (docs/full-band.md); "wave": the wave solver's band only.
    std::string band = "full";
    std::optional<double> crossover_hz;  // default kCrossoverFraction * max_frequency
    // The default crossover as a fraction of max_frequency: its half-octave transition then ends
    // at 0.71 max_frequency, inside the wave solver's flat band (which ends at 0.8).
    static constexpr double kCrossoverFraction = 0.6;
    double effective_crossover_hz() const {
        return crossover_hz ? *crossover_hz : kCrossoverFraction * max_frequency;
    }

    double effective_points_per_wavelength() const {
        return points_per_wavelength ? *points_per_wavelength : (solver == "fdtd" ? 10.0 : 2.6);
    }
    // Grid spacing h = c / (s f_max).
    double cell_size() const {
        return speed_of_sound / (effective_points_per_wavelength() * max_frequency);
    }
};

// The highest crossover a max_frequency allows: the crossover's half-octave transition must end
// (a quarter octave above it) inside the wave solver's flat band, which ends at 0.8 max_frequency.
double max_crossover_hz(double max_frequency);
// "expected at most ... Hz (...), got ..." for a crossover above max_crossover_hz.
std::string crossover_problem(double crossover_hz, double max_frequency);

// The geometric engine's settings (the scene's `geometric` keys; docs/full-band.md).
struct GeometricSettings {
    // Rays per source; 0: rays_for the room's volume.
    size_t rays = 0;
    int image_source_order = 3;  // highest reflection order found as image sources
    bool operator==(const GeometricSettings&) const = default;

    // Rays per source in a room of `volume` m^3: `rays` when set, else 30 per m^3 and at least
    // 20 000. A receiver sees a smaller share of a larger room's reflections, so its late decay
    // needs more rays: 20 000 gave T20 within 0.8 % of 10 times as many in every octave
    // 250 Hz-8 kHz in BRAS CR2, but up to 15 % in the Musikverein (12 400 m^3), where 10 per m^3
    // came within 2.0-3.6 %, 20 within 1.8-2.6 % and 30 within 1.2-1.5 % (bench_geometric,
    // docs/benchmarks.md).
    size_t rays_for(double volume) const;
    // The listener grid's rays per source in a room of `volume` m^3: its rays make no visibility
    // queries, so it traces kListenerGridRayFactor times the receivers' count at 10 per m^3 (and
    // at least 20 000), or times `rays` when set (docs/full-band.md, "The listener grid"). The
    // receivers' density was raised for their own T20; the grid's cubes, checked at this count,
    // keep it.
    size_t grid_rays_for(double volume) const;
    static constexpr size_t kListenerGridRayFactor = 4;
};

struct Scene {
    std::filesystem::path file;  // where it was read from (empty when built in memory)
    std::string name;
    Geometry geometry;
    std::vector<Material> materials;
    std::vector<SurfaceRule> surfaces;  // order as written: the first match wins
    std::vector<Emitter> sources;
    std::vector<Emitter> receivers;
    // The listener grid as written: `every` N cells or `spacing_m` metres, at most one of them
    // (neither: no grid). Read the grid's step through listener_grid_cells().
    int listener_grid_every = 0;
    double listener_grid_spacing_m = 0;
    SimulationSettings simulation;
    GeometricSettings geometric;
    Atmosphere air;  // the `air` keys: absorption of the outputs, and c when only T is given
    int output_sample_rate = 48000;

    int material_index(const std::string& material_name) const;  // -1 if absent
    // Cells between neighbouring listener-grid points: `every`, or spacing_m / cell_size()
    // rounded to the nearest whole number and at least 1, so the points keep their spacing in
    // metres when max_frequency changes; 0: no listener grid.
    int listener_grid_cells() const;
    // Scene file name for messages ("scene.json" or "<memory>").
    std::string display_name() const;
};

// The files a scene was read from (its file and its mesh, where there are): inputs that no output
// of a run may be or hold (safe_output.h).
std::vector<std::filesystem::path> scene_inputs(const Scene& scene);

}  // namespace ardent
