#include "ardent/preprocess/scene_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <system_error>

#include "ardent/preprocess/errors.h"

namespace ardent {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

json vec_json(Vec3 v) {
    return json::array({v.x, v.y, v.z});
}

// A band's key as a user would write it: "125", "31.5".
std::string band_name(double hz) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", hz);
    return buf;
}

json emitters_json(const std::vector<Emitter>& list) {
    json a = json::array();
    for (const Emitter& e : list)
        a.push_back({{"name", e.name}, {"position", vec_json(e.position)}});
    return a;
}

// Relative to the scene's folder when the result stays short (at most two levels up), so a
// project folder moved as a whole still finds its model; absolute otherwise.
std::string mesh_path_text(const fs::path& mesh, const fs::path& file) {
    if (file.empty()) return mesh.string();
    const fs::path base = fs::absolute(file).parent_path();
    const fs::path rel = fs::absolute(mesh).lexically_proximate(base);
    if (rel.is_relative()) {
        int ups = 0;
        for (const auto& part : rel)
            ups += part == "..";
        if (ups <= 2) return rel.generic_string();
    }
    return fs::absolute(mesh).lexically_normal().string();
}

}  // namespace

json scene_json(const Scene& scene, const fs::path& file) {
    json j;
    j["format"] = "ardent-scene/1";
    if (!scene.name.empty()) j["name"] = scene.name;

    json g;
    if (scene.geometry.box) {
        g["box"] = vec_json(*scene.geometry.box);
    } else {
        g["mesh"] = mesh_path_text(scene.geometry.mesh, file);
        g["scale"] = scene.geometry.scale;
        g["up"] = std::string(1, scene.geometry.up);
    }
    j["geometry"] = g;

    json materials = json::object();
    for (const Material& m : scene.materials) {
        if (m.lab) {
            const MaterialLabData& lab = *m.lab;
            const bool normal = lab.kind == MaterialLabData::Kind::NormalAbsorption;
            const auto value = [&](size_t i) -> json {
                if (normal) return lab.value[i].first;
                return json::array({lab.value[i].first, lab.value[i].second});
            };
            json given;
            if (lab.per_band) {
                given = json::object();
                for (size_t i = 0; i < lab.hz.size(); ++i)
                    given[band_name(lab.hz[i])] = value(i);
            } else {
                given = value(0);
            }
            materials[m.name] = {{normal ? "normal_absorption" : "impedance", given}};
        } else if (m.per_band) {
            json bands = json::object();
            for (const AbsorptionBand& b : m.absorption)
                bands[band_name(b.hz)] = b.alpha;
            materials[m.name] = {{"absorption", bands}};
        } else {
            materials[m.name] = {{"absorption", m.absorption.front().alpha}};
        }
    }
    for (const Material& m : scene.materials) {
        if (m.scattering.empty()) continue;
        if (m.scattering_per_band) {
            json bands = json::object();
            for (const AbsorptionBand& b : m.scattering)
                bands[band_name(b.hz)] = b.alpha;
            materials[m.name]["scattering"] = bands;
        } else {
            materials[m.name]["scattering"] = m.scattering.front().alpha;
        }
    }
    j["materials"] = materials;

    json surfaces = json::object();
    for (const SurfaceRule& r : scene.surfaces)
        surfaces[r.pattern] = r.material;
    j["surfaces"] = surfaces;

    j["sources"] = emitters_json(scene.sources);
    j["receivers"] = emitters_json(scene.receivers);
    if (scene.listener_grid_every > 0)
        j["listener_grid"] = {{"every", scene.listener_grid_every}};
    else if (scene.listener_grid_spacing_m > 0)
        j["listener_grid"] = {{"spacing_m", scene.listener_grid_spacing_m}};

    const SimulationSettings& s = scene.simulation;
    json sim = {{"solver", s.solver},
                {"device", s.device},
                {"max_frequency", s.max_frequency},
                {"duration", s.duration}};
    if (s.points_per_wavelength) sim["points_per_wavelength"] = *s.points_per_wavelength;
    sim["speed_of_sound"] = s.speed_of_sound;
    if (s.partition_sides != SimulationSettings{}.partition_sides)
        sim["partition_sides"] = s.partition_sides;
    if (s.band != SimulationSettings{}.band) sim["band"] = s.band;
    if (s.crossover_hz) sim["crossover"] = *s.crossover_hz;
    j["simulation"] = sim;
    if (scene.geometric != GeometricSettings{}) {
        json geo = json::object();
        if (scene.geometric.rays) geo["rays"] = scene.geometric.rays;
        geo["image_source_order"] = scene.geometric.image_source_order;
        j["geometric"] = geo;
    }
    if (scene.air != Atmosphere{})
        j["air"] = {{"temperature", scene.air.temperature_c},
                    {"humidity", scene.air.relative_humidity},
                    {"pressure", scene.air.pressure_kpa},
                    {"absorption", scene.air.absorption}};
    j["output"] = {{"sample_rate", scene.output_sample_rate}};
    return j;
}

std::string scene_text(const Scene& scene, const fs::path& file) {
    return scene_json(scene, file).dump(2) + "\n";
}

void save_scene(const Scene& scene, const fs::path& file, const OutputRules& rules) {
    const std::string text = scene_text(scene, file);
    write_output_file(file, rules, [&](const fs::path& tmp) {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) throw_write_error(file, errno);
    });
}

bool same_scene(const Scene& a, const Scene& b) {
    // Compared through the written form with absolute mesh paths, so that the files they came
    // from do not matter.
    return scene_json(a, {}) == scene_json(b, {});
}

}  // namespace ardent
