#include "ardent/pipeline/grid_map_setup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <stdexcept>

#include "ardent/pipeline/grid_full_band.h"

namespace ardent::pipeline {
namespace fs = std::filesystem;

std::optional<nlohmann::json> read_result_json(const fs::path& file) {
    std::ifstream in(file);
    auto j =
        nlohmann::json::parse(in, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 32) throw std::runtime_error("nested deeper than a result.json is");
            return true;
        });
    if (!j.is_object() || !j.contains("format") || j.at("format") != "ardent-result/1")
        return std::nullopt;
    return j;
}

std::optional<GridProvenance> grid_provenance(const fs::path& grid_file,
                                              const std::string& source) {
    if (grid_file.parent_path().filename() != "grid") return std::nullopt;
    const fs::path dir = grid_file.parent_path().parent_path();
    const fs::path file = (dir.empty() ? fs::path(".") : dir) / "result.json";
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    const auto result = read_result_json(file);
    if (!result) return std::nullopt;
    const nlohmann::json& j = *result;
    GridProvenance p;
    p.file = file.string();
    p.speed_of_sound = j.at("settings").at("speed_of_sound").get<double>();
    p.flat_to_hz = j.at("excitation").at("flat_to_hz").get<double>();
    bool found = false;
    for (const auto& s : j.at("sources"))
        if (s.at("name") == source) {
            for (size_t a = 0; a < 3; ++a)
                p.source[a] = s.at("cell_centre").at(a).get<double>();
            found = true;
        }
    if (!found) throw std::runtime_error("no source named \"" + source + "\"");
    double z = 0;
    for (const auto& r : j.at("receivers"))
        z += r.at("position").at(2).get<double>();
    if (!j.at("receivers").empty())
        p.receiver_height = z / static_cast<double>(j.at("receivers").size());
    if (!(p.speed_of_sound > 0) || !std::isfinite(p.speed_of_sound))
        throw std::runtime_error(
            "its speed of sound (settings.speed_of_sound) is not a positive "
            "number");
    if (!(p.flat_to_hz >= 0) || !std::isfinite(p.flat_to_hz))
        throw std::runtime_error("its flat band (excitation.flat_to_hz) is not a frequency");
    p.scene_hash = j.at("scene").value("hash", "");
    p.output_sample_rate = j.at("settings").value("output_sample_rate", 0.0);
    p.full_band = j.contains("band") && j.at("band").value("mode", "") == "full";
    return p;
}

std::string grid_provenance_mismatch(const GridProvenance& prov, const auralize::IrGrid& grid) {
    char why[200];
    if (!prov.scene_hash.empty() && !grid.scene_hash().empty() &&
        prov.scene_hash != grid.scene_hash())
        return "its scene.hash " + prov.scene_hash + " is not the grid's scene_hash " +
               grid.scene_hash();
    if (prov.output_sample_rate > 0 && prov.output_sample_rate != grid.output_sample_rate()) {
        std::snprintf(why, sizeof why, "it says an output rate of %g Hz, the grid's is %g Hz",
                      prov.output_sample_rate, grid.output_sample_rate());
        return why;
    }
    // The nearest point of the grid's box: where the direct sound arrives first.
    double d2 = 0;
    for (size_t a = 0; a < 3; ++a) {
        const double d =
            std::max({grid.lower()[a] - prov.source[a], 0.0, prov.source[a] - grid.upper()[a]});
        d2 += d * d;
    }
    const double onset = std::sqrt(d2) / prov.speed_of_sound;
    const double length = static_cast<double>(grid.samples()) / grid.sample_rate();
    if (!(onset < length)) {
        std::snprintf(why, sizeof why,
                      "its source lies %.4g m from the grid: the direct sound would arrive at "
                      "%.4g s, after the IRs' end at %.4g s",
                      std::sqrt(d2), onset, length);
        return why;
    }
    return {};
}

auralize::GridAnalysisOptions grid_map_options(const auralize::IrGrid& grid,
                                               const std::optional<GridProvenance>& prov) {
    auralize::GridAnalysisOptions options;
    if (prov) {
        options.source = prov->source;
        options.free_field_10m = 1 / (40 * std::numbers::pi);  // Ardent's IR convention
        options.speed_of_sound = prov->speed_of_sound;
        options.max_frequency_hz = prov->flat_to_hz;
    }
    if (grid.geometric()) {
        options.ir_rate = grid.output_sample_rate();
        options.ir_of_row = [&grid, rate = options.ir_rate](size_t point,
                                                            const std::vector<float>& row) {
            return grid_point_ir(grid, point, row, rate);
        };
        options.max_frequency_hz = 0.45 * options.ir_rate;
    }
    return options;
}

}  // namespace ardent::pipeline
