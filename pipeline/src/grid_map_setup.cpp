#include "ardent/pipeline/grid_map_setup.h"

#include <cmath>
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
    if (!(p.speed_of_sound > 0) || !std::isfinite(p.flat_to_hz))
        throw std::runtime_error("its speed of sound or band is not a number");
    return p;
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
