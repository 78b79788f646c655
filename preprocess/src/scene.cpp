#include "ardent/preprocess/scene.h"

#include <numeric>

namespace ardent {

double Material::mean_absorption() const {
    return std::accumulate(absorption.begin(), absorption.end(), 0.0) /
           static_cast<double>(absorption.size());
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
