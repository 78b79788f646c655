#include "material_library.h"

#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/errors.h"

namespace ardent::editor {
namespace fs = std::filesystem;

const LibraryMaterial* MaterialLibrary::find(const std::string& name) const {
    for (const auto& m : materials)
        if (m.material.name == name) return &m;
    return nullptr;
}

MaterialLibrary load_material_library(const fs::path& file) {
    std::ifstream in(file);
    if (!in) throw InputError(file.string() + ": cannot read the material library");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(file.string() + ": not valid JSON: " + e.what());
    }
    if (j.value("format", "") != "ardent-materials/1")
        throw InputError(file.string() + ": format: expected \"ardent-materials/1\"");
    MaterialLibrary lib;
    lib.source = j.value("source", "");
    if (!j.contains("materials") || !j["materials"].is_array())
        throw InputError(file.string() + ": materials: expected an array");
    size_t i = 0;
    for (const auto& m : j["materials"]) {
        const std::string where = file.string() + ": materials[" + std::to_string(i++) + "]";
        LibraryMaterial lm;
        try {
            lm.material.name = m.at("name").get<std::string>();
            lm.description = m.value("description", "");
            std::vector<AbsorptionBand> bands;
            for (size_t b = 0; b < kOctaveBandsHz.size(); ++b) {
                const double a =
                    m.at("absorption").at(std::to_string(kOctaveBandsHz[b])).get<double>();
                if (!std::isfinite(a) || a < 0 || a > 1)
                    throw InputError(where + ": absorption must lie in [0, 1]");
                bands.push_back({static_cast<double>(kOctaveBandsHz[b]), a});
            }
            lm.material.set_bands(bands);
        } catch (const nlohmann::json::exception& e) {
            throw InputError(where + ": " + e.what());
        }
        lib.materials.push_back(std::move(lm));
    }
    return lib;
}

fs::path data_dir() {
    if (const char* env = std::getenv("ARDENT_DATA_DIR"); env && *env) return env;
    std::array<char, 4096> buf{};
    const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n > 0) {
        const fs::path exe_dir =
            fs::path(std::string(buf.data(), static_cast<size_t>(n))).parent_path();
        for (const fs::path& c :
             {exe_dir / ".." / "share" / "ardent" / "data", exe_dir / ".." / "data"})
            if (fs::exists(c / "materials" / "library.json")) return c.lexically_normal();
    }
    return fs::path(ARDENT_SOURCE_DIR) / "data";
}

}  // namespace ardent::editor
