// How a run's listener grid is analysed for maps of the room (docs/analysis.md, "Maps"), shared
// by `ardent analyze --map` and the editor's map overlay: what the run's result.json says about
// the grid (its source's cell centre, the speed of sound, the flat band, the receivers' mean
// height), and the analysis options that follow from it: each point's onset its distance to the
// source over c, strength G against the IR convention's free field, the bands of the flat band,
// and a full-band grid's IRs joined above the crossover as `ardent auralize` renders them.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ardent/auralize/grid_maps.h"
#include "ardent/auralize/ir_grid.h"

namespace ardent::pipeline {

// result.json of a results directory; nothing when it is not Ardent's format. Throws when it
// cannot be parsed (deep nesting is refused early: a file there may not be ours).
std::optional<nlohmann::json> read_result_json(const std::filesystem::path& file);

struct GridProvenance {
    auralize::Point source{};  // the source's cell centre, m
    double speed_of_sound = 343, flat_to_hz = 0;
    std::optional<double> receiver_height;  // the receivers' mean z
    std::string file;                       // the result.json read
    std::string scene_hash;                 // scene.hash
    double output_sample_rate = 0;          // settings.output_sample_rate
    bool full_band = false;                 // band.mode "full": its grids hold /geometric
};

// For DIR/grid/<source>.h5: DIR/result.json's account of the grid. Nothing when the file is not
// in a results directory or there is no result.json in Ardent's format; throws std::runtime_error
// saying why when there is one that cannot be read (the caller decides whether to warn).
std::optional<GridProvenance> grid_provenance(const std::filesystem::path& grid_file,
                                              const std::string& source);

// Why `prov` does not describe `grid` (the result.json of another run beside it, or an edited
// one); empty when it does: the scene hashes differ, the output rates differ, or the source lies
// so far from the grid that its direct sound reaches no point within the IRs (a source 1e6 m away
// put it at 2915 s in 0.2 s IRs).
std::string grid_provenance_mismatch(const GridProvenance& prov, const auralize::IrGrid& grid);

// The analysis options for the grid's maps: from `prov` when given (onset, G, flat band), and a
// full-band grid's IRs at the receivers' rate with the band open to 0.45 of it.
auralize::GridAnalysisOptions grid_map_options(const auralize::IrGrid& grid,
                                               const std::optional<GridProvenance>& prov);

}  // namespace ardent::pipeline
