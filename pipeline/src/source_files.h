// One source's files in the results directory (docs/output-format.md) from its solver run: each
// receiver's IR and AmbiX WAVs (joined with the geometric half in a full-band run), its
// listener-grid file, and the receivers' rows of result.json's ISO 3382 table. simulate() writes
// them on its own thread, or on another one while the GPU solves the next source: the write reads
// only what stays fixed for the whole run.
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/ir_grid.h"
#include "ardent/pipeline/simulate.h"
#include "ardent/preprocess/preprocess.h"
#include "full_band.h"
#include "receiver_ambisonics.h"

namespace ardent::pipeline {

// One source's finished solver run as rank 0 writes it: the recorded signals (at the simulation
// rate) and what result.json reports of the run.
struct SolvedSource {
    std::vector<std::vector<double>> receivers;
    std::vector<std::vector<float>> grid;
    double dt = 0, solve_s = 0, setup_s = 0;
    size_t steps = 0, memory = 0;
    std::string solver_name;
};

// What every source's write reads, the same for the whole run.
struct SourceFiles {
    const Preprocessed& p;
    const FullBand* full;  // null in a wave-band run
    const ReceiverAmbisonics& receiver_foa;
    std::filesystem::path dir;  // the results directory being made
    std::string scene_hash;
    int threads;  // 0: every core
    const std::atomic<bool>* stop;
};

struct WrittenSource {
    std::vector<nlohmann::ordered_json> acoustics;  // one row per receiver, in receiver order
    double seconds = 0;
};

// Writes source `s`'s files, reporting to `to` (write_begin, write_progress, write_end); `geo`
// holds the receivers' geometric IRs in a full-band run, `grid_geo` the grid's geometric part
// (null: none). Throws Interrupted (interrupted.h) when *run.stop becomes true.
WrittenSource write_source_files(const SourceFiles& run, size_t s, const SolvedSource& solved,
                                 const std::vector<FullBand::Ambisonic>& geo,
                                 const auralize::GridGeometric* grid_geo, SimulateObserver& to);

}  // namespace ardent::pipeline
