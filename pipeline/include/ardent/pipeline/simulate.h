// The `ardent simulate` run as a library call, so that the command line and the editor run the
// same code: preprocess the scene, run the wave solver once per source, write the impulse
// responses, the listener-grid files and result.json into a results directory that appears only
// when complete (docs/output-format.md). The caller sees the run through a SimulateObserver
// (stages, steps, live pressure slices through the source) and stops it through an atomic flag;
// simulate() blocks, so a GUI calls it from a worker thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "ardent/preprocess/scene.h"
#include "ardent/preprocess/vec.h"
#include "ardent/solvers/solver.h"

namespace ardent::pipeline {

enum class Distribution { Partitions, Sources };

enum class WriteDuringSolve { Auto, Always, Never };

struct SimulateSettings {
    std::filesystem::path output;  // results directory (required)
    bool force = false;            // replace an existing results directory once the new one is done
    bool resume = false;           // continue the checkpointed run in <output>.tmp-partial/
    Precision precision = Precision::Float32;
    int threads = 0;              // 0: every core
    size_t checkpoint_every = 0;  // steps between checkpoints; 0: none
    // A distributed run (several ranks): every rank calls simulate() with the same scene and
    // settings; each steps its part of the room (ard_distribute.h) and rank 0 alone writes the
    // results directory and reports to its observer. Null or one rank: a single process.
    Communicator* comm = nullptr;
    // How a distributed run shares the work: each rank a part of the room (ARD; exchanges every
    // step), or each rank whole sources (any solver; no exchange, for many-source bakes).
    Distribution distribution = Distribution::Partitions;
    int gpu = -1;  // this process's CUDA device (SolverOptions::gpu)
    // Whether each source's files are written while the next source solves (the observer still
    // hears of the write, later, on the run's thread). Auto: in a single-process GPU run without
    // checkpoints, whose solve leaves the CPU's cores idle. Always: also on the CPU, where the
    // write and the solver share the cores (for tests). Never: each write before the next solve.
    WriteDuringSolve write_during_solve = WriteDuringSolve::Auto;
};

// One plane of the pressure field (time level n) through a grid index. The plane's two in-plane
// axes are the other two model axes in increasing order: u (columns) then v (rows).
struct PressureSlice {
    int axis = 2;               // plane normal: 0 x, 1 y, 2 z
    int index = 0;              // cell index along `axis`
    int width = 0, height = 0;  // cells along u and v
    // width * height values, row-major (height rows of width); NaN where not air.
    std::vector<float> values;
    double cell_size = 0;  // h in metres
    Vec3 origin;           // model coordinates of the centre of cell (0, 0) of the slice
    size_t step = 0;       // solver steps done
    double time_s = 0;     // simulated time of the slice: step * dt
    std::string source;    // the driving source
};

// What a run reports. Every call comes from the thread that runs simulate(); the slice passed to
// slice() is reused afterwards, so copy what you keep.
class SimulateObserver {
  public:
    virtual ~SimulateObserver() = default;
    // A stage begins: "Preprocessing <scene> ...", "Writing <source> ...".
    virtual void stage(const std::string& /*text*/) {}
    // Something the user should see that does not stop the run: a folder an earlier, killed run
    // left beside the output, with the command that removes it (OutputDir::leftovers).
    virtual void warning(const std::string& /*text*/) {}
    // Source `index` of `count` starts its solver run of `total_steps`, `steps_done` of them
    // already done (a resumed checkpoint).
    virtual void source_begin(const std::string& /*name*/, size_t /*index*/, size_t /*count*/,
                              size_t /*total_steps*/, size_t /*steps_done*/) {}
    // Steps done so far for the current source; a few times a second.
    virtual void progress(size_t /*steps_done*/) {}
    // The current source's solver run finished (its files are written next) ...
    virtual void source_end() {}
    // ... or stopped early: cancelled or failed (an exception follows).
    virtual void source_stopped() {}
    // A full-band run's geometric stage for a source (after its wave solve): `rays` rays, then
    // rays done a few times a second, then its end (or a stop, when the run is cancelled).
    virtual void geometric_begin(const std::string& /*source*/, size_t /*rays*/) {}
    virtual void geometric_progress(size_t /*rays_done*/) {}
    virtual void geometric_end() {}
    virtual void geometric_stopped() {}
    // Writing the current source's files, after its solve: `irs` impulse responses (each receiver's
    // IR and ambisonic WAVs, then each listener-grid point's IR and gradient), then IRs written
    // so far a few times a second, then the end. 500 receivers took 8.7 s here with no word.
    virtual void write_begin(const std::string& /*source*/, size_t /*irs*/) {}
    virtual void write_progress(size_t /*irs_done*/) {}
    virtual void write_end() {}
    // Asked after every chunk of steps (chunks grow to 0.12-0.5 s of solving, so 2 to 8 times a
    // second); return true to receive slice() now. The observer throttles (e.g. at most 5 per
    // second); each slice costs a gather of one plane (bench_live_slice: no measurable slowdown).
    virtual bool want_slice() { return false; }
    // The pressure in the plane through the driving source's cell, normal to the scene's up axis.
    virtual void slice(const PressureSlice& /*s*/) {}
};

struct SimulateResult {
    std::filesystem::path directory;      // the committed results directory (rank 0)
    std::vector<std::string> ir_files;    // relative to `directory`, as in result.json "files"
    std::vector<std::string> grid_files;  // relative to `directory` (empty without a grid)
    double seconds = 0;                   // wall time of the whole call
    // Which solver gave which part of the band, for a user: "ARD below 600 Hz, geometric
    // acoustics above (transition 505-714 Hz)" or "ARD only, flat to 800 Hz".
    std::string band;
};

// The run stopped because *stop became true. Nothing is left behind, except a checkpointed run's
// partial directory (kept(), continued by SimulateSettings::resume).
class Cancelled : public std::exception {
  public:
    explicit Cancelled(std::filesystem::path kept);
    // Empty when nothing was written.
    const std::filesystem::path& kept() const { return kept_; }
    // The command line's wording: "interrupted; nothing was written" or "interrupted; the partial
    // run is kept in '<dir>': continue it with --resume".
    const char* what() const noexcept override { return message_.c_str(); }

  private:
    std::filesystem::path kept_;
    std::string message_;
};

// Runs the whole simulation of `scene` (its simulation settings as they stand: front ends apply
// their overrides first) into settings.output, holding its OutputLock (safe_output.h) throughout
// (rank 0 of a distributed run). Throws InputError (bad input, an output that exists without
// force, another run holding the output, a partial run that is not resumed), ResourceError (memory,
// no GPU), SolverError (a source's run blew up: "the simulation of source <name> failed: <why>";
// its directory is discarded, even a partial one), Cancelled (stopped through `stop`, which may be
// null).
SimulateResult simulate(Scene scene, const SimulateSettings& settings, SimulateObserver& observer,
                        const std::atomic<bool>* stop = nullptr);

}  // namespace ardent::pipeline
