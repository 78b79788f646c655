// The geometric half of a full-band run (docs/full-band.md), for simulate(): the engine built
// once per run, then per source its receivers' geometric IRs at the output rate, filtered by the
// air like the wave solver's, and the report result.json gives.
#pragma once

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/ir_grid.h"
#include "ardent/geometric/geometric.h"
#include "ardent/pipeline/simulate.h"
#include "ardent/preprocess/preprocess.h"
#include "observer_relay.h"

namespace ardent::pipeline {

class FullBand {
  public:
    // Throws InputError when the crossover is above what max_frequency allows.
    FullBand(const Preprocessed& p, int threads);

    // A receiver's geometric IR as third-order AmbiX channels (ACN, SN3D, model axes: 16); W is
    // its omnidirectional IR.
    using Ambisonic = std::vector<std::vector<float>>;
    static constexpr int kAmbisonicOrder = 3;

    // The source's geometric IRs, one per receiver (output.sample_rate, duration long); nullopt
    // when `stop` became true.
    std::optional<std::vector<Ambisonic>> run(size_t source, SimulateObserver& observer,
                                              const std::atomic<bool>* stop);
    // The listener grid's geometric part for `source` (the grid file's /geometric, format 4):
    // image sources at every grid point, envelopes per cell of a lattice of cubes at least
    // kGridCellMin detection radii on a side; nullopt when `stop` became true.
    std::optional<auralize::GridGeometric> grid(size_t source, SimulateObserver& observer,
                                                const std::atomic<bool>* stop);
    // The grid's rays per source: more than the receivers' (no rain, so each costs less).
    size_t grid_rays() const;

    // The wave IR below the crossover, the geometric one above it.
    std::vector<float> join(const std::vector<float>& wave, const std::vector<float>& geo) const;

    double crossover_hz() const { return crossover_hz_; }
    double seconds() const { return seconds_; }
    nlohmann::ordered_json report() const;  // result.json's "band"
    // "<solver> below 600 Hz, geometric acoustics above (transition 505-714 Hz)".
    std::string summary(const std::string& solver) const;

  private:
    const Preprocessed& p_;
    geometric::Engine engine_;
    double crossover_hz_;
    int threads_;
    double seconds_ = 0;
    nlohmann::ordered_json sources_ = nlohmann::ordered_json::array();
    nlohmann::ordered_json grid_sources_ = nlohmann::ordered_json::array();
    struct Diffuse {
        geometric::BandValues rate, source_gain;  // GapAbsorption::rate_per_s, boundary_gain
    };
    std::map<size_t, Diffuse> gap_;  // per source, from run() for grid()
};

// A source's geometric stage (FullBand::run, then FullBand::grid with a listener grid) on its own
// threads while a GPU solves the same source: the solver's host thread leaves the CPU's cores
// idle, so the rays hide the wave solve's time (docs/full-band.md, "Cost"). The rays' threads run
// at a lower priority, so the solver's launches are not held up. Nothing touches `full` until
// take() returns or the object dies; the rays' progress and warnings reach the caller's observer
// in take(), on the caller's thread.
class RaysBesideSolve {
  public:
    struct Traced {
        std::vector<FullBand::Ambisonic> receivers;
        std::optional<auralize::GridGeometric> grid;
    };
    RaysBesideSolve(FullBand& full, size_t source, bool listener_grid);
    ~RaysBesideSolve();  // stops the rays if they still run, and waits for them
    RaysBesideSolve(const RaysBesideSolve&) = delete;
    RaysBesideSolve& operator=(const RaysBesideSolve&) = delete;

    // Waits for the rays, stopping them when *stop becomes true; nullopt when stopped.
    std::optional<Traced> take(SimulateObserver& observer, const std::atomic<bool>* stop);
    double waited_s() const { return waited_s_; }  // the part of their time take() waited

  private:
    std::atomic<bool> abandon_{false};
    std::unique_ptr<ObserverRelay> relay_;  // what the rays report, kept for take()
    std::future<std::optional<Traced>> job_;
    double waited_s_ = 0;
};

}  // namespace ardent::pipeline
