#include "ardent/preprocess/scene.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace ardent {

namespace {

// Linear in log frequency between the bands, the end bands' values beyond them.
double interpolate_bands(const std::vector<AbsorptionBand>& bands, double hz) {
    if (bands.size() == 1 || hz <= bands.front().hz) return bands.front().alpha;
    if (hz >= bands.back().hz) return bands.back().alpha;
    const auto hi = std::upper_bound(bands.begin(), bands.end(), hz,
                                     [](double f, const AbsorptionBand& b) { return f < b.hz; });
    const auto lo = hi - 1;
    const double t = std::log(hz / lo->hz) / std::log(hi->hz / lo->hz);
    return lo->alpha + t * (hi->alpha - lo->alpha);
}

// `per_cubic_metre` rays for each m^3 of `volume`, at least 20 000.
size_t rays_per_volume(double per_cubic_metre, double volume) {
    constexpr double kLeast = 20000, kMost = 1e8;
    return static_cast<size_t>(std::clamp(std::round(per_cubic_metre * volume), kLeast, kMost));
}

}  // namespace

double Material::absorption_at(double hz) const {
    return interpolate_bands(absorption, hz);
}

double Material::scattering_at(double hz) const {
    return scattering.empty() ? kDefaultScattering : interpolate_bands(scattering, hz);
}

double Material::mean_absorption() const {
    double sum = 0;
    for (const AbsorptionBand& b : absorption)
        sum += b.alpha;
    return sum / static_cast<double>(absorption.size());
}

double Material::max_absorption() const {
    double m = 0;
    for (const AbsorptionBand& b : absorption)
        m = std::max(m, b.alpha);
    return m;
}

void Material::set_uniform(double alpha) {
    absorption = {{0, alpha}};
    per_band = false;
    lab.reset();
}

void Material::set_bands(const std::vector<AbsorptionBand>& bands) {
    absorption = bands;
    std::sort(absorption.begin(), absorption.end(),
              [](const AbsorptionBand& a, const AbsorptionBand& b) { return a.hz < b.hz; });
    per_band = true;
    lab.reset();
}

size_t GeometricSettings::rays_for(double volume) const {
    return rays ? rays : rays_per_volume(30, volume);
}

size_t GeometricSettings::grid_rays_for(double volume) const {
    return kListenerGridRayFactor * (rays ? rays : rays_per_volume(10, volume));
}

double max_crossover_hz(double max_frequency) {
    return 0.8 * max_frequency / std::pow(2.0, 0.25);
}

std::string crossover_problem(double crossover_hz, double max_frequency) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "expected at most %.0f Hz (the wave solver is flat up to 0.8 max_frequency "
                  "and the crossover's transition ends a quarter octave above it), got %g",
                  std::floor(max_crossover_hz(max_frequency)), crossover_hz);
    return buf;
}

int Scene::material_index(const std::string& material_name) const {
    for (size_t i = 0; i < materials.size(); ++i) {
        if (materials[i].name == material_name) return static_cast<int>(i);
    }
    return -1;
}

int Scene::listener_grid_cells() const {
    if (listener_grid_every > 0) return listener_grid_every;
    if (!(listener_grid_spacing_m > 0)) return 0;
    // The parser bounds spacing_m; the cap only keeps an in-memory scene's ratio an int.
    const double cells = std::round(listener_grid_spacing_m / simulation.cell_size());
    return static_cast<int>(std::clamp(cells, 1.0, 1e9));
}

std::string Scene::display_name() const {
    return file.empty() ? std::string("<memory>") : file.string();
}

std::vector<std::filesystem::path> scene_inputs(const Scene& scene) {
    std::vector<std::filesystem::path> inputs;
    if (!scene.file.empty()) inputs.push_back(scene.file);
    if (!scene.geometry.mesh.empty()) inputs.push_back(scene.geometry.mesh);
    return inputs;
}

}  // namespace ardent
