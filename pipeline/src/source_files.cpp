#include "source_files.h"

#include <array>
#include <chrono>
#include <cmath>
#include <future>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>

#include "ardent/auralize/analysis.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/crossover.h"
#include "ardent/pipeline/simulate_output.h"
#include "ardent/preprocess/errors.h"
#include "ardent/solvers/excitation.h"
#include "gradient_cells.h"
#include "in_batches.h"
#include "interrupted.h"

namespace ardent::pipeline {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ISO 3382-1 octave-band parameters of one delivered IR, limited to the band the IR is flat in
// (`flat_to_hz`: 0.8 f_max for the wave band; the output's band for a full-band run). A receiver
// whose IR cannot be analysed (silent: the source cannot reach it within the duration) gets the
// reason instead of failing the run. Time zero is the direct sound's arrival, `direct_s`.
// With a crossover (a full-band run), each band says which solver it came from.
json room_acoustics(const std::vector<float>& ir, int fs, double flat_to_hz, double direct_s,
                    double crossover_hz, const std::string& source, const std::string& receiver) {
    json j = {{"source", source}, {"receiver", receiver}};
    try {
        auralize::AnalysisOptions o;
        o.max_frequency_hz = flat_to_hz;
        o.onset_s = direct_s;
        o.free_field_10m = 1 / (40 * std::numbers::pi);  // the IR convention: strength G
        const auralize::Analysis a =
            auralize::analyze_ir(std::span<const float>(ir), fs, auralize::Bands::Octave, o);
        j["iso3382"] = auralize::to_json(a);
        if (crossover_hz > 0)
            for (size_t b = 0; b < a.results.size(); ++b)
                j["iso3382"]["bands"][b]["from"] = auralize::to_string(auralize::band_origin(
                    a.results[b].lower_hz, a.results[b].upper_hz, crossover_hz));
    } catch (const InputError& e) {
        j["iso3382"] = nullptr;
        j["not_analysed"] = e.what();
    }
    return j;
}

// A receiver's AmbiX IR (W, Y, Z, X), one 4-channel float WAV.
void write_ambix(const fs::path& file, const std::vector<std::vector<float>>& channels, int rate) {
    audio::Audio a;
    a.sample_rate = rate;
    a.channels = static_cast<int>(channels.size());
    const size_t n = channels[0].size(), m = channels.size();
    a.samples.resize(m * n);
    for (size_t k = 0; k < n; ++k)
        for (size_t c = 0; c < m; ++c)
            a.samples[m * k + c] = channels[c][k];
    audio::write_audio(file, a, audio::WriteMode::Direct);
}

// The listener-grid file of one source (docs/output-format.md) from the signals the solver
// recorded: each point's IR and its pressure gradient's, delivered at the band's rate; and in a
// full-band run the geometric part above the crossover.
void write_grid(const Preprocessed& p, const std::vector<std::vector<float>>& recorded,
                const IrDelivery& delivery, double dt, const fs::path& file,
                const std::string& source, const std::string& hash,
                const auralize::GridGeometric* geometric, int threads,
                const std::atomic<bool>* stop, const std::atomic<bool>& abandon,
                const std::function<void(size_t)>& points_done) {
    const double duration = p.scene.simulation.duration;
    const int fs_out = p.scene.output_sample_rate;
    // The solver recorded the grid points, then their neighbours (listener_cells):
    // the gradient at a point is the one-cell difference of its neighbours.
    const ListenerCells lc = p.listener_cells();
    if (recorded.size() != lc.cells.size())
        throw std::logic_error("the solver recorded " + std::to_string(recorded.size()) +
                               " listener-grid cells, expected " + std::to_string(lc.cells.size()));
    const Grid& g = p.air.grid;
    const std::vector<GradientStencil> stencil = gradient_stencils(p.air, lc);
    std::vector<Vec3> pos(lc.points);
    std::vector<GradientKinds> kinds(lc.points);
    for (size_t i = 0; i < lc.points; ++i) {
        pos[i] = g.centre(lc.cells[i]);
        kinds[i] = stencil[i].kinds;
    }
    // Stored at the band's rate (grid_decimator), not the output rate: a fraction of
    // the samples, and no per-signal converter.
    const audio::IrDecimator band = grid_decimator(dt, p.scene.simulation.max_frequency);
    const auto samples = static_cast<size_t>(std::llround(duration * band.rate_out()));
    GridFileInfo info;
    info.source = source;
    info.sample_rate = band.rate_out();
    info.output_sample_rate = static_cast<double>(fs_out);
    info.max_frequency = p.scene.simulation.max_frequency;
    info.grid_spacing = g.h * p.scene.listener_grid_cells();
    info.gradient_spacing = g.h;
    info.every = p.scene.listener_grid_cells();
    info.scene_hash = hash;
    GridWriter grid(file, pos, kinds, samples, info);
    // Each point's IR and three gradient IRs are filtered, decimated and compressed
    // independently: a batch of points at a time on every worker thread, written in order while
    // the next batch is encoded (rows: two batches, alternately).
    const size_t workers = worker_count(threads), batch = 16 * workers;
    std::vector<GridWriter::EncodedPoint> rows(2 * batch);
    in_batches_overlapped(
        lc.points, workers, batch,
        [&](size_t i) {
            GridWriter::EncodedPoint& out = rows[i % (2 * batch)];
            const std::vector<float> ir =
                delivery.deliver(std::span<const float>(recorded[i]), band);
            std::array<std::vector<float>, 3> gradient;
            std::vector<float> diff;
            for (size_t a = 0; a < 3; ++a) {
                const auto& ends = stencil[i].ends[a];
                one_cell_difference(recorded[ends[0]], recorded[ends[1]], kinds[i][a], g.h, diff);
                gradient[a] = delivery.deliver(std::span<const float>(diff), band);
            }
            out = grid.encode(ir, {gradient[0], gradient[1], gradient[2]});
        },
        [&](size_t begin, size_t end) {
            for (size_t i = begin; i < end; ++i)
                grid.write_point(i, rows[i % (2 * batch)]);
            points_done(end);
            stop_point(stop);
            if (abandon.load()) throw Interrupted{};
        });
    if (geometric) grid.write_geometric(*geometric);
    grid.close();
}

// Each receiver's IR and AmbiX files of source `s` and its ISO 3382 row, on its own worker thread
// (a hall's 16 receivers took 10 s of one thread a source); the rows keep receiver order.
// progress(n) after each batch, n receivers done.
std::vector<json> write_receivers(const SourceFiles& run, size_t s, const SolvedSource& solved,
                                  const std::vector<FullBand::Ambisonic>& geo,
                                  const IrDelivery& delivery,
                                  const std::function<void(size_t)>& progress) {
    const int fs_out = run.p.scene.output_sample_rate;
    const std::string& src_name = run.p.air.sources[s].name;
    const size_t n_rec = run.p.air.receivers.size();
    std::vector<json> rows(n_rec);
    const size_t workers = worker_count(run.threads);
    in_batches(
        n_rec, workers, workers,
        [&](size_t r) {
            const auto& sig = solved.receivers[r];
            std::vector<float> ir = delivery.deliver(std::span<const double>(sig));
            const auto wave = run.receiver_foa.wave(r, solved.receivers, ir, delivery);
            std::vector<std::vector<float>> ambix(wave.begin(), wave.end());
            if (run.full) {
                // Third order above the crossover: the wave solver's first order below,
                // its higher orders none (the geometric part's faded in).
                ambix.resize(geo[r].size(), std::vector<float>(ir.size(), 0.0f));
                for (size_t c = 0; c < ambix.size(); ++c)
                    ambix[c] = run.full->join(ambix[c], geo[r][c]);
                ir = ambix[0];  // W: the geometric W is its omnidirectional IR
            }
            const std::string pair =
                safe_name(src_name) + "_" + safe_name(run.p.air.receivers[r].name) + ".wav";
            audio::write_wav_float(run.dir / "ir" / pair, ir, fs_out, audio::WriteMode::Direct);
            write_ambix(run.dir / "ambix" / pair, ambix, fs_out);
            // The IR's time zero is the emission; both halves place the source and the
            // receiver at their cell centres.
            const double direct_s =
                norm(run.p.air.receivers[r].cell_centre - run.p.air.sources[s].cell_centre) /
                run.p.scene.simulation.speed_of_sound;
            rows[r] = room_acoustics(
                ir, fs_out, run.full ? 0.45 * fs_out : 0.8 * run.p.scene.simulation.max_frequency,
                direct_s, run.full ? run.full->crossover_hz() : 0.0, src_name,
                run.p.air.receivers[r].name);
        },
        [&](size_t, size_t end) {
            progress(end);
            stop_point(run.stop);
        });
    return rows;
}

}  // namespace

WrittenSource write_source_files(const SourceFiles& run, size_t s, const SolvedSource& solved,
                                 const std::vector<FullBand::Ambisonic>& geo,
                                 const auralize::GridGeometric* grid_geo, SimulateObserver& to) {
    const auto tw = std::chrono::steady_clock::now();
    const int fs_out = run.p.scene.output_sample_rate;
    const double duration = run.p.scene.simulation.duration;
    const std::string& src_name = run.p.air.sources[s].name;
    const double dt = solved.dt;
    const Excitation ex = Excitation::for_band(run.p.scene.simulation.max_frequency, dt);
    const size_t n_rec = run.p.air.receivers.size(),
                 n_grid = run.p.scene.listener_grid_cells() > 0 ? run.p.listener_points() : 0;
    to.write_begin(src_name, n_rec + n_grid);
    const IrDelivery delivery(dt, ex.delay(), fs_out, duration, run.p.scene.air,
                              run.p.scene.simulation.speed_of_sound);
    // The grid's file is written beside the receivers' files, on threads of its own: the
    // receivers take a thread each and leave most cores idle while the slowest finishes (so up to
    // twice the worker threads run meanwhile). Only this thread reports to `to`.
    std::atomic<size_t> points{0};
    std::atomic<bool> abandon{false};
    std::future<void> grid;
    if (run.p.scene.listener_grid_cells() > 0)
        grid = std::async(std::launch::async, [&] {
            write_grid(run.p, solved.grid, delivery, dt,
                       run.dir / "grid" / (safe_name(src_name) + ".h5"), src_name, run.scene_hash,
                       grid_geo, run.threads, run.stop, abandon,
                       [&](size_t done) { points.store(done); });
        });
    std::vector<json> rows;
    try {
        rows = write_receivers(run, s, solved, geo, delivery,
                               [&](size_t done) { to.write_progress(done + points.load()); });
    } catch (...) {
        abandon.store(true);  // the grid gives up at its next batch; its future then waits for it
        throw;
    }
    if (grid.valid()) {
        while (grid.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready)
            to.write_progress(n_rec + points.load());
        grid.get();  // the grid's error, if any
    }
    to.write_progress(n_rec + n_grid);
    to.write_end();
    return WrittenSource{std::move(rows), seconds_since(tw)};
}

}  // namespace ardent::pipeline
