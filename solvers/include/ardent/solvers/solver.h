// The interface every wave solver implements (ARD and FDTD, on CPU or CUDA), chosen at run time
// by make_solver(). A solver is built from a preprocessed scene for one driving source; advance()
// runs time steps, injecting the band-limited source and sampling the receivers and the listener
// grid at every step. Everything is at the simulation rate 1/dt; delivered IRs are the signals
// advanced by the excitation's delay (see excitation.h) and resampled by the caller.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/solvers/communicator.h"
#include "ardent/solvers/excitation.h"

namespace ardent {

enum class Precision { Float32, Float64 };

struct SolverOptions {
    Precision precision = Precision::Float32;
    int threads = 0;            // 0: every core
    size_t source = 0;          // index into the scene's sources driving this run
    bool listener_grid = true;  // sample the scene's listener grid
    // Also sample the cells next to each receiver, after the receivers in receivers()
    // (Preprocessed::receiver_cells): the pressure gradient of its ambisonic IR.
    bool receiver_gradients = false;
    bool inject_source = true;          // false: start from set_pressure() values instead (tests)
    double ard_courant = 0;             // ARD c*dt/h; 0: kArdCourant (stability studies, benches)
    std::filesystem::path fftw_wisdom;  // empty: $XDG_CACHE_HOME or ~/.cache/ardent/
    // A distributed run (ard_distribute.h): every rank of `comm` builds the solver with the same
    // options and steps its part of the room; the recorded signals are complete on rank 0 only.
    // Null or one rank: a single-process run. ARD only (make_solver refuses FDTD).
    Communicator* comm = nullptr;
    int gpu = -1;  // CUDA device index (modulo those present); -1: CUDA's current device
};

// The run went wrong numerically (NaN, infinity or blow-up); the message names the step.
class SolverError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Solver {
  public:
    virtual ~Solver() = default;

    virtual std::string name() const = 0;  // e.g. "ard-cpu-float32"
    double dt() const { return dt_; }
    size_t steps_done() const { return step_; }
    const Excitation& excitation() const { return excitation_; }

    // Runs `steps` time steps. Checks the field every so often and throws SolverError on NaN,
    // infinity or growth beyond any bounded solution. Returns early (false) when `stop` is set.
    virtual bool advance(size_t steps, const std::atomic<bool>* stop = nullptr) = 0;
    // Returns once every step advance() queued has run. The CUDA backends return from advance()
    // while the GPU still works through up to a few dozen steps, so a timer stops after this.
    virtual void wait() const {}

    // Sizes the recorded signals for a run of `total` steps in all, so that they are not
    // reallocated as it goes: a hall's 38 835 grid signals, grown together, were all copied at
    // once whenever they doubled, on the thread that feeds the GPU (7 % of a 1 s run's steps).
    void expect_steps(size_t total);

    // Moves the recorded signals out, for a caller done with the run (the solver keeps none).
    void take_signals(std::vector<std::vector<double>>& receivers,
                      std::vector<std::vector<float>>& grid) {
        settle_signals();
        receivers = std::move(receivers_);
        grid = std::move(grid_signals_);
    }

    // Pressure at every receiver (scene order) for every step done so far. In a distributed run
    // rank 0 holds them (gathered at the end of every advance()); other ranks hold none.
    const std::vector<std::vector<double>>& receivers() const {
        settle_signals();
        return receivers_;
    }
    // Listener grid: cell centres and, per point, the pressure at every step.
    const std::vector<Vec3>& grid_positions() const { return grid_positions_; }
    const std::vector<std::vector<float>>& grid_signals() const {
        settle_signals();
        return grid_signals_;
    }

    // Diagnostics and tests: sum of p^2 over air cells, and setting the initial field (both
    // time levels) of one air cell.
    virtual double field_energy() const = 0;
    virtual void set_pressure(Index3 cell, double value) = 0;

    // One plane of the current pressure (time level n, the field field_energy() sums), for live
    // views: the grid cells with coordinate `index` along `axis` (0 x, 1 y, 2 z). The other two
    // axes in increasing order are u and v; `out` is resized to dims[u] * dims[v] and cell (u, v)
    // goes to out[v * dims[u] + u]. NaN where the cell is not simulated air. A gather of one
    // plane (the map from plane to storage is kept for the next call on the same plane); throws
    // std::invalid_argument for a plane outside the grid.
    virtual void pressure_plane(int axis, int index, std::vector<float>& out) const = 0;

    // Bytes of solver state this instance holds.
    virtual size_t memory_bytes() const = 0;

    // A distributed run's share on this rank: partitions, their air cells, and the halo cells
    // (copies of other ranks' cells kept current by exchanges). All zero in a single process.
    struct RankPart {
        size_t partitions = 0, cells = 0, halo_cells = 0;
        std::string exchange;  // how halos travel: "mpi", "nccl", "mpi-host-staged"
    };
    virtual RankPart rank_part() const { return {}; }

    // Checkpoints: the complete state (step count, both time levels of every field, recorded
    // signals). load_state() expects a solver made by make_solver() from the same preprocessed
    // scene and options, throws InputError on a stream that does not match, and advancing after it
    // gives results bit-identical to an uninterrupted run.
    virtual void save_state(std::ostream& out) const = 0;
    virtual void load_state(std::istream& in) = 0;

  protected:
    // A backend whose samples come back asynchronously (the CUDA ARD backend copies them while
    // later steps run) brings receivers_ and grid_signals_ up to date here; every reader of them
    // calls it first.
    virtual void settle_signals() const {}
    // Backends call this every few dozen steps. Throws SolverError, naming the step, when the
    // field is NaN or infinite, or once the source (injecting: `injects`) is silent, when sum p^2
    // grows past 1000 times its peak: a passive room cannot gain energy, but sum p^2 swings
    // between potential and kinetic energy, hence the wide margin.
    void check_field(bool injects);
    // The recorded receiver and listener-grid signals, the part of a checkpoint every backend
    // shares.
    void save_signals(std::ostream& out) const;
    void load_signals(std::istream& in);
    // A distributed run: the samples recorded since the last call (each signal recorded by the
    // rank that owns its cell, zero elsewhere) summed onto rank 0; other ranks drop theirs.
    // Collective: every rank calls it after the same steps.
    void gather_signals(Communicator& comm);
    // pressure_plane()'s cells in its order, each the backend's storage index of that grid cell
    // (`storage` of its grid index; -1 where not air). Built on the first call for a plane and
    // kept while the same plane is asked for again; `rebuilt` says when it was built anew.
    const std::vector<int64_t>& plane_cells(const Grid& grid, int axis, int index,
                                            const std::function<int64_t(size_t)>& storage,
                                            bool* rebuilt = nullptr) const;

    double dt_ = 0;
    double peak_energy_ = 0;  // largest sum p^2 while the source was on (kept in checkpoints)
    size_t step_ = 0;
    size_t gathered_ = 0;  // steps whose samples gather_signals() has summed
    Excitation excitation_;
    // Mutable for settle_signals(), which completes them from a const reader.
    mutable std::vector<std::vector<double>> receivers_;
    std::vector<Vec3> grid_positions_;
    mutable std::vector<std::vector<float>> grid_signals_;

  private:
    mutable int plane_axis_ = -1, plane_index_ = -1;
    mutable std::vector<int64_t> plane_cells_;
};

// Throws ResourceError when one source's run (solver fields and recorded signals) needs more host
// memory than the machine has; the message gives the estimate and what to lower. make_solver()
// calls it; front ends call it too before they create anything.
void check_memory(const Preprocessed& scene, const SolverOptions& options);

// The solver the scene asks for (simulation.solver, simulation.device; "auto" picks CUDA when a
// GPU is present). Throws ResourceError when the device is missing or memory does not suffice.
std::unique_ptr<Solver> make_solver(const Preprocessed& scene, const SolverOptions& options);

}  // namespace ardent
