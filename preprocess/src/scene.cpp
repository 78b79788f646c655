#include "ardent/preprocess/scene.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ardent {

double Material::absorption_at(double hz) const {
    if (absorption.size() == 1 || hz <= absorption.front().hz) return absorption.front().alpha;
    if (hz >= absorption.back().hz) return absorption.back().alpha;
    const auto hi = std::upper_bound(absorption.begin(), absorption.end(), hz,
                                     [](double f, const AbsorptionBand& b) { return f < b.hz; });
    const auto lo = hi - 1;
    const double t = std::log(hz / lo->hz) / std::log(hi->hz / lo->hz);
    return lo->alpha + t * (hi->alpha - lo->alpha);
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

int Scene::material_index(const std::string& material_name) const {
    for (size_t i = 0; i < materials.size(); ++i) {
        if (materials[i].name == material_name) return static_cast<int>(i);
    }
    return -1;
}

std::string Scene::display_name() const {
    return file.empty() ? std::string("<memory>") : file.string();
}

}  // namespace ardent
