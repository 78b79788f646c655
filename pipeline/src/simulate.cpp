// The body of `ardent simulate` (spec section 4, formats in docs/output-format.md), moved out of
// the CLI so that the editor runs the same code: preprocess, one solver run per source in chunks
// of about a quarter second (progress, stop and live slices between chunks), then the IR WAVs,
// the listener-grid files and result.json, committed atomically. A checkpointed run keeps its
// partial directory so that a resumed run can continue it.
#include "ardent/pipeline/simulate.h"

#include <sys/resource.h>
#include <unistd.h>

#include <libdeflate.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/pipeline/simulate_output.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/preprocess/info.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/safe_output.h"
#include "ardent/solvers/solver.h"
#include "full_band.h"
#include "interrupted.h"
#include "observer_relay.h"
#include "receiver_ambisonics.h"
#include "solver_prefetch.h"
#include "source_files.h"

namespace ardent::pipeline {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// ---- checkpoints ------------------------------------------------------------------------------

// A checkpoint file: the solver's state, then a trailer of kChecksumMagic, the CRC-32 of the state
// (libdeflate's) and its length, so that a damaged or cut file is refused on resume instead of
// running into NaN. Written to a temporary name and renamed, so a crash while writing keeps the
// previous one.
constexpr char kChecksumMagic[8] = {'A', 'R', 'D', 'C', 'R', 'C', '0', '1'};

// CRC-32 of the first `length` bytes of `file` (fewer if it is shorter: then `length` is lowered).
std::uint32_t file_crc(const fs::path& file, std::uint64_t& length) {
    std::ifstream in(file, std::ios::binary);
    std::vector<char> buf(1 << 20);
    std::uint32_t crc = 0;
    std::uint64_t done = 0;
    while (in && done < length) {
        in.read(buf.data(),
                static_cast<std::streamsize>(std::min<std::uint64_t>(buf.size(), length - done)));
        const auto got = static_cast<size_t>(in.gcount());
        if (got == 0) break;
        crc = libdeflate_crc32(crc, buf.data(), got);
        done += got;
    }
    length = done;
    return crc;
}

void save_solver_state(const Solver& solver, const fs::path& file) {
    fs::path tmp = file;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        solver.save_state(out);
        out.flush();
        if (!out) throw_write_error(tmp, errno, "a checkpoint");
    }
    std::uint64_t length = fs::file_size(tmp);
    const std::uint32_t crc = file_crc(tmp, length);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::app);
        out.write(kChecksumMagic, sizeof kChecksumMagic);
        out.write(reinterpret_cast<const char*>(&crc), sizeof crc);
        out.write(reinterpret_cast<const char*>(&length), sizeof length);
        out.flush();
        if (!out) throw_write_error(tmp, errno, "a checkpoint");
    }
    fs::rename(tmp, file);
}

void load_solver_state(Solver& solver, const fs::path& file) {
    std::error_code ec;
    const std::uint64_t size = fs::file_size(file, ec);
    constexpr std::uint64_t trailer = sizeof kChecksumMagic + 4 + 8;
    std::ifstream in(file, std::ios::binary);
    if (ec || !in) throw InputError("cannot read the checkpoint " + quoted_path(file));
    const auto damaged = [&](const std::string& why) {
        return InputError("checkpoint " + quoted_path(file) + " is damaged (" + why +
                          "); the partial run cannot continue from it: delete the partial run "
                          "to start again");
    };
    if (size < trailer) throw damaged("too short");
    char magic[sizeof kChecksumMagic];
    std::uint32_t crc = 0;
    std::uint64_t length = 0;
    in.seekg(static_cast<std::streamoff>(size - trailer));
    in.read(magic, sizeof magic);
    in.read(reinterpret_cast<char*>(&crc), sizeof crc);
    in.read(reinterpret_cast<char*>(&length), sizeof length);
    if (!in || std::memcmp(magic, kChecksumMagic, sizeof magic) != 0)
        throw damaged("no checksum at its end");
    if (length != size - trailer) throw damaged("its length is not the one written");
    std::uint64_t read = length;
    if (file_crc(file, read) != crc || read != length) throw damaged("its checksum does not match");
    in.clear();
    in.seekg(0);
    try {
        solver.load_state(in);
    } catch (const InputError& e) {
        throw InputError("checkpoint " + quoted_path(file) + ": " + e.what());
    }
}

json read_json_file(const fs::path& file) {
    std::ifstream in(file);
    if (!in) throw InputError("cannot read '" + file.string() + "'");
    try {
        return json::parse(in);
    } catch (const json::exception& e) {
        throw InputError("'" + file.string() + "' is not valid JSON: " + e.what());
    }
}

void write_json_file(const fs::path& file, const json& j) {
    fs::path tmp = file;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << j.dump(2) << "\n";
        out.flush();
        if (!out) throw InputError("cannot write '" + file.string() + "'");
    }
    fs::rename(tmp, file);
}

// The plane of the current pressure through `index` along `axis`, with its placement in the model.
void fill_slice(const Solver& solver, const Grid& g, int axis, int index, PressureSlice& s) {
    const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
    s.axis = axis;
    s.index = index;
    s.width = g.dims[static_cast<size_t>(u)];
    s.height = g.dims[static_cast<size_t>(v)];
    s.cell_size = g.h;
    Index3 c{0, 0, 0};
    c[static_cast<size_t>(axis)] = index;
    s.origin = g.centre(c);
    s.step = solver.steps_done();
    s.time_s = static_cast<double>(solver.steps_done()) * solver.dt();
    solver.pressure_plane(axis, index, s.values);
}

// ---- helpers ----------------------------------------------------------------------------------

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

json vec_json(Vec3 v) {
    return json::array({v.x, v.y, v.z});
}

size_t peak_rss_bytes() {
    rusage ru{};
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return static_cast<size_t>(ru.ru_maxrss) * 1024;  // Linux reports KiB
}

// The device part of a solver name such as "ard-cpu-float32".
std::string device_of(const std::string& solver_name) {
    const size_t a = solver_name.find('-');
    if (a == std::string::npos) return "";
    const size_t b = solver_name.find('-', a + 1);
    return solver_name.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

// Each rank's share of a distributed run (Solver::RankPart), gathered on rank 0. Collective.
json rank_parts(const Solver& solver, Communicator& comm) {
    const auto n = static_cast<size_t>(comm.size());
    std::vector<double> parts(n), cells(n), halo(n);
    const Solver::RankPart mine = solver.rank_part();
    const auto r = static_cast<size_t>(comm.rank());
    parts[r] = static_cast<double>(mine.partitions);
    cells[r] = static_cast<double>(mine.cells);
    halo[r] = static_cast<double>(mine.halo_cells);
    for (auto* v : {&parts, &cells, &halo})
        comm.sum_to_root(v->data(), n);
    json j = {{"mode", "partitions"},        {"ranks", comm.size()},
              {"exchange", mine.exchange},  // rank 0's; every rank chooses alike
              {"partitions", json::array()}, {"cells", json::array()},
              {"halo_cells", json::array()}};
    for (size_t i = 0; i < n; ++i) {
        j["partitions"].push_back(std::llround(parts[i]));
        j["cells"].push_back(std::llround(cells[i]));
        j["halo_cells"].push_back(std::llround(halo[i]));
    }
    return j;
}

struct SolvedHeader {
    double dt, solve_s, setup_s;
    uint64_t steps, memory, receivers, grid, samples, grid_samples;
    char solver_name[64];
};

// Rows of equal length, sent in blocks of at most 256 MB (one message's limit is 2 GB).
template <typename T>
void transfer_rows(std::vector<std::vector<T>>& rows, size_t length, Communicator& comm, int peer,
                   bool send) {
    const size_t per =
        std::max<size_t>(1, (size_t{256} << 20) / std::max<size_t>(1, length * sizeof(T)));
    std::vector<T> buf;
    for (size_t r0 = 0; r0 < rows.size(); r0 += per) {
        const size_t r1 = std::min(rows.size(), r0 + per);
        buf.resize((r1 - r0) * length);
        if (send)
            for (size_t r = r0; r < r1; ++r)
                std::copy_n(rows[r].begin(), length,
                            buf.begin() + static_cast<long>((r - r0) * length));
        const Communicator::Message m{peer, buf.data(), buf.size() * sizeof(T)};
        if (send)
            comm.exchange(std::span(&m, 1), {});
        else
            comm.exchange({}, std::span(&m, 1));
        if (!send)
            for (size_t r = r0; r < r1; ++r)
                rows[r].assign(buf.begin() + static_cast<long>((r - r0) * length),
                               buf.begin() + static_cast<long>((r - r0 + 1) * length));
    }
}

// A source solved on this rank, to rank 0 (collective with receive_solved there).
void send_solved(SolvedSource& s, Communicator& comm) {
    SolvedHeader h{};
    h.dt = s.dt;
    h.solve_s = s.solve_s;
    h.setup_s = s.setup_s;
    h.steps = s.steps;
    h.memory = s.memory;
    h.receivers = s.receivers.size();
    h.grid = s.grid.size();
    h.samples = s.receivers.empty() ? 0 : s.receivers[0].size();
    h.grid_samples = s.grid.empty() ? 0 : s.grid[0].size();
    std::snprintf(h.solver_name, sizeof h.solver_name, "%s", s.solver_name.c_str());
    const Communicator::Message m{0, &h, sizeof h};
    comm.exchange(std::span(&m, 1), {});
    transfer_rows(s.receivers, h.samples, comm, 0, true);
    transfer_rows(s.grid, h.grid_samples, comm, 0, true);
}

SolvedSource receive_solved(Communicator& comm, int from) {
    SolvedHeader h{};
    const Communicator::Message m{from, &h, sizeof h};
    comm.exchange({}, std::span(&m, 1));
    SolvedSource s;
    s.dt = h.dt;
    s.solve_s = h.solve_s;
    s.setup_s = h.setup_s;
    s.steps = h.steps;
    s.memory = h.memory;
    s.solver_name = std::string(h.solver_name, strnlen(h.solver_name, sizeof h.solver_name));
    s.receivers.resize(h.receivers);
    s.grid.resize(h.grid);
    transfer_rows(s.receivers, h.samples, comm, from, false);
    transfer_rows(s.grid, h.grid_samples, comm, from, false);
    return s;
}

struct SourceRun {
    std::string name;
    double solve_s = 0;
    double setup_s = 0;  // of solve_s: making the solver (layout, tables, device upload)
    size_t steps = 0;
    std::string solver_name;
    size_t solver_memory = 0;
};

}  // namespace

Cancelled::Cancelled(fs::path kept)
    : kept_(std::move(kept)),
      message_(kept_.empty() ? std::string("interrupted; nothing was written")
                             : "interrupted; the partial run is kept in '" + kept_.string() +
                                   "': continue it with --resume") {}

SimulateResult simulate(Scene scene, const SimulateSettings& settings, SimulateObserver& observer,
                        const std::atomic<bool>* stop) {
    const auto t_start = std::chrono::steady_clock::now();
    const fs::path& target = settings.output;
    if (target.empty()) throw InputError("simulate: no results directory was given");
    const bool partial = settings.checkpoint_every > 0 || settings.resume;
    Communicator* const comm = settings.comm && settings.comm->size() > 1 ? settings.comm : nullptr;
    const bool root = !comm || comm->root();  // writes the results and reports progress
    // One run per output, held until this function returns (the results committed or the
    // temporary directory removed); first, so that a second run hears of the first one at once.
    std::optional<OutputLock> lock;
    if (root) lock.emplace(target);
    OutputDir::check_target(target, settings.force, scene_inputs(scene));
    if (root) {
        OutputDir::check_partial(target, settings.resume);
        for (const std::string& w : OutputDir::leftovers(target))
            observer.warning(w);
    }
    const bool by_sources = comm && settings.distribution == Distribution::Sources;
    if (by_sources && partial)
        throw InputError(
            "checkpoints (--checkpoint-every, --resume) are not available when sources are "
            "spread over ranks (--distributed=sources)");
    const std::string precision_name =
        settings.precision == Precision::Float64 ? "float64" : "float32";
    try {
        observer.stage("Preprocessing " + scene.display_name() + " ...");
        auto t0 = std::chrono::steady_clock::now();
        const Preprocessed p = preprocess(scene);
        const double preprocess_s = seconds_since(t0);
        std::vector<std::string> warnings = p.warnings;  // printed, and kept in result.json
        if (root) {
            const std::vector<MaterialSurface> surfaces = material_surfaces(p);
            for (size_t m = 0; m < surfaces.size(); ++m)
                if (const std::string w = material_surface_warning(surfaces[m], p.air.grid.h);
                    !w.empty())
                    warnings.push_back("material \"" + scene.materials[m].name + "\": " + w);
            for (const std::string& w : warnings)
                observer.warning(w);
        }
        stop_point(stop);
        SolverOptions sopts;
        sopts.precision = settings.precision;
        sopts.threads = settings.threads;
        sopts.listener_grid = scene.listener_grid_cells() > 0;
        sopts.receiver_gradients = true;  // every receiver's ambisonic IR
        sopts.comm = by_sources ? nullptr : comm;
        sopts.gpu = settings.gpu;
        // Before anything is written; a run over partitions holds a part on each rank.
        if (!sopts.comm) check_memory(p, sopts);
        std::optional<FullBand> full;  // rank 0 traces the rays
        if (scene.simulation.band == "full" && root) full.emplace(p, settings.threads);
        const ReceiverAmbisonics receiver_foa(p);
        const std::string hash = scene_hash(scene);
        const int fs_out = scene.output_sample_rate;
        const double duration = scene.simulation.duration;

        std::optional<OutputDir> dir_slot;
        if (root) {
            dir_slot.emplace(target, settings.force, partial, scene_inputs(scene));
            dir_slot->create(settings.resume);
            if (partial) dir_slot->keep();  // a checkpointed run's directory outlives failures
        }
        // Rank 0's results directory; other ranks use only its checkpoint folder.
        const fs::path tmp_dir =
            root ? dir_slot->tmp() : (partial ? OutputDir::partial_path(target) : fs::path());
        const fs::path ckdir = tmp_dir / "checkpoint";
        const int ranks = comm ? comm->size() : 1;
        // A source's checkpoint: in a distributed run one file per rank, named with its step,
        // so that the files of the step state.json names stay until every rank has the next.
        const auto checkpoint_file = [&](size_t src, size_t steps) {
            if (!comm) return ckdir / (std::to_string(src) + ".state");
            return ckdir / (std::to_string(src) + ".rank" + std::to_string(comm->rank()) + "-of-" +
                            std::to_string(ranks) + ".step" + std::to_string(steps) + ".state");
        };
        // This rank's checkpoint files of a source but the one of step `keep` (all: keep = -1).
        const auto remove_checkpoints = [&](size_t src, size_t keep) {
            std::error_code ec;
            const fs::path kept =
                keep == static_cast<size_t>(-1) ? fs::path() : checkpoint_file(src, keep);
            const std::string name = checkpoint_file(src, 0).filename().string();
            const std::string stem = comm ? name.substr(0, name.rfind(".step") + 5) : name;
            for (const auto& e : fs::directory_iterator(ckdir, ec)) {
                const std::string n = e.path().filename().string();
                if (n.rfind(stem, 0) == 0 && e.path() != kept) fs::remove(e.path(), ec);
            }
        };
        const fs::path state_file = ckdir / "state.json";
        // Format 2: the walls' branches step as since 2026-11-27 (docs/materials.md, "Stability
        // in ARD"); a format-1 state would resume into a different scheme.
        constexpr const char* kCheckpointFormat = "ardent-checkpoint/2";
        json state = {{"format", kCheckpointFormat},
                      {"scene_hash", hash},
                      {"precision", precision_name},
                      {"checkpoint_every", settings.checkpoint_every},
                      {"ranks", ranks},
                      {"sources_done", json::array()},
                      {"runs", json::array()},
                      {"current", nullptr}};
        if (settings.resume) {
            state = read_json_file(state_file);
            if (const std::string f = state.value("format", ""); f != kCheckpointFormat)
                throw InputError("cannot resume " + tmp_dir.string() + ": its checkpoint is " +
                                 (f.empty() ? std::string("of an unknown format") : "'" + f + "'") +
                                 ", written by another version of Ardent, whose solvers keep "
                                 "a different state (delete it to start again)");
            if (state.value("scene_hash", "") != hash ||
                state.value("precision", "") != precision_name)
                throw InputError("cannot resume " + tmp_dir.string() +
                                 ": the scene, its mesh or the settings changed since the "
                                 "checkpoint (delete it to start again)");
            const int had = state.value("ranks", 1);
            if (had != ranks)
                throw InputError("cannot resume " + tmp_dir.string() + ": it was checkpointed by " +
                                 std::to_string(had) + (had == 1 ? " process" : " ranks") +
                                 "; resume it with as many" +
                                 (had > 1
                                      ? " (mpirun -n " + std::to_string(had) + " ... --distributed)"
                                      : std::string(" (without mpirun)")));
        } else if (partial && root) {
            fs::create_directories(ckdir);
            write_json_file(state_file, state);
        }
        if (comm && partial) comm->barrier();  // rank 0 made the checkpoint folder
        const size_t every = settings.checkpoint_every > 0
                                 ? settings.checkpoint_every
                                 : state.value("checkpoint_every", size_t{0});

        std::vector<SourceRun> runs;
        for (const auto& r : state["runs"])
            runs.push_back({r.at("name"), r.at("solve_s"), r.value("setup_s", 0.0), r.at("steps"),
                            r.at("solver"), r.at("memory_bytes")});
        double write_s = 0;
        double geometric_wait_s = 0;  // the geometric stage's time not hidden behind a GPU solve
        json excitation_json, solver_json;
        if (state.contains("solver") && !state["solver"].is_null()) solver_json = state["solver"];
        if (state.contains("excitation")) excitation_json = state["excitation"];
        const size_t n_src = p.air.sources.size();

        // A distributed run: each rank's part, or which rank solved which source.
        json distribution =
            by_sources
                ? json{{"mode", "sources"}, {"ranks", comm->size()}, {"sources", json::object()}}
                : json();
        PressureSlice live;              // reused: a slice's buffer is allocated once per run
        json acoustics = json::array();  // ISO 3382-1 per source and receiver
        const auto source_done = [&](const std::string& name) {
            for (const auto& d : state["sources_done"])
                if (d == name) return true;
            return false;
        };
        const SourceFiles files_of{p,    full ? &*full : nullptr, receiver_foa, tmp_dir,
                                   hash, settings.threads,        stop};
        // The previous source's write, when it ran during this source's solve: waited for (its
        // progress passed on meanwhile), its rows taken in source order.
        struct PendingWrite {
            std::string source;
            std::unique_ptr<ObserverRelay> relay = std::make_unique<ObserverRelay>();
            std::future<WrittenSource> job;
            // Set when the write has thrown: the solve beside it stops at its next chunk.
            std::shared_ptr<std::atomic<bool>> failed = std::make_shared<std::atomic<bool>>(false);
        };
        double write_waited_s = 0;  // the writes' time not hidden behind a GPU solve
        const auto take_written = [&](WrittenSource& w) {
            for (json& row : w.acoustics)
                acoustics.push_back(std::move(row));
            write_s += w.seconds;
        };
        // After everything its thread reads, so that a failing run joins it first.
        std::optional<PendingWrite> pending;
        const auto finish_pending = [&] {
            if (!pending) return;
            const auto tw = std::chrono::steady_clock::now();
            if (pending->job.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
                observer.stage("Writing " + pending->source + " (begun during the next solve) ...");
            while (pending->job.wait_for(std::chrono::milliseconds(100)) !=
                   std::future_status::ready)
                pending->relay->forward(observer);
            WrittenSource w;
            try {
                w = pending->job.get();
            } catch (...) {
                pending.reset();
                throw;
            }
            pending->relay->finish(observer, false);
            pending.reset();
            take_written(w);
            write_waited_s += seconds_since(tw);
        };
        SolverPrefetch prefetch;  // the next source's solver, set up during a GPU solve
        for (size_t s = 0; s < n_src; ++s) {
            const std::string src_name = p.air.sources[s].name;
            if (source_done(src_name)) continue;
            stop_point(stop);
            // Sources over ranks: source s is solved whole by rank s mod ranks; rank 0 writes.
            const int owner =
                by_sources ? static_cast<int>(s % static_cast<size_t>(comm->size())) : 0;
            const bool solve_here = !by_sources || owner == comm->rank();
            if (!solve_here && !root) continue;
            SolvedSource solved;
            std::unique_ptr<Solver> solver;
            std::optional<RaysBesideSolve> beside;  // a GPU solve's rays, traced meanwhile
            std::function<void()> save_checkpoint = [] {};
            // A checkpointed full-band run leaves the signals in the solver until the rays are
            // traced: they are part of its state, so that an interrupt during the rays saves a
            // checkpoint that resumes (the solve done, the rays traced again).
            const bool hold_signals = full && partial && !comm;
            if (solve_here) {
                sopts.source = s;
                t0 = std::chrono::steady_clock::now();
                solver = prefetch.take(p, sopts, s, solved.setup_s);
                const bool gpu = device_of(solver->name()) == "cuda";
                // A GPU leaves the CPU's cores to the rays (docs/full-band.md, "Cost") and to
                // the next source's set-up (solver_prefetch.h).
                if (full && gpu) beside.emplace(*full, s, scene.listener_grid_cells() > 0);
                // Once this solver holds all it allocates (its two step graphs exist after two
                // steps), so that the next one's memory check sees what is left.
                std::optional<size_t> prefetch_next;
                if (gpu && !comm)
                    for (size_t next = s + 1; next < n_src && !prefetch_next; ++next)
                        if (!source_done(p.air.sources[next].name)) prefetch_next = next;
                if (settings.resume && state["current"].is_object() &&
                    state["current"].value("source", size_t{0}) == s) {
                    const fs::path file =
                        checkpoint_file(s, state["current"].value("steps", size_t{0}));
                    bool have = fs::exists(file);
                    if (comm) have = !comm->any(!have);  // every rank resumes, or none
                    if (have) load_solver_state(*solver, file);
                }
                const size_t total =
                    steps_needed(solver->dt(), solver->excitation().delay(), duration);
                solver->expect_steps(total);
                observer.source_begin(src_name, s, n_src, total, solver->steps_done());
                live.source = src_name;
                const int plane_axis = scene.geometry.up_axis();
                const int plane_index = p.air.sources[s].cell[static_cast<size_t>(plane_axis)];
                // Chunks of about a quarter second keep the bar live; Ctrl-C stops inside a chunk.
                size_t chunk = 1;
                // Collective in a distributed run: every rank's file, then state.json names it.
                save_checkpoint = [&, s] {
                    const size_t steps = solver->steps_done();
                    save_solver_state(*solver, checkpoint_file(s, steps));
                    if (comm) comm->barrier();
                    if (root) {
                        state["current"] = {{"source", s}, {"steps", steps}};
                        write_json_file(state_file, state);
                    }
                    if (comm) {
                        comm->barrier();
                        remove_checkpoints(s, steps);
                    }
                };
                try {
                    while (solver->steps_done() < total) {
                        size_t n = std::min(chunk, total - solver->steps_done());
                        if (every > 0) n = std::min(n, every - solver->steps_done() % every);
                        const auto tc = std::chrono::steady_clock::now();
                        const bool finished = solver->advance(n, stop);
                        const double took = seconds_since(tc);
                        if (prefetch_next && solver->steps_done() >= 2) {
                            prefetch.start(p, sopts, *prefetch_next);
                            prefetch_next.reset();
                        }
                        // Every rank sizes its chunks alike (advance() gathers at its end).
                        const bool quick =
                            sopts.comm ? !sopts.comm->any(took >= 0.12) : took < 0.12;
                        const bool slow = sopts.comm ? sopts.comm->any(took > 0.5) : took > 0.5;
                        observer.progress(solver->steps_done());
                        // The previous source's write failed beside this solve (a full disk):
                        // the run fails now, with its message, not once this solve is done.
                        if (pending && pending->failed->load()) {
                            observer.source_stopped();
                            finish_pending();  // throws the write's error
                        }
                        // A distributed run stops inside advance(), on every rank at once.
                        if (!finished || (!sopts.comm && stopped(stop))) {
                            observer.source_stopped();
                            if (partial) save_checkpoint();
                            throw Interrupted{};
                        }
                        if (every > 0 && solver->steps_done() % every == 0 &&
                            solver->steps_done() < total)
                            save_checkpoint();
                        if (observer.want_slice()) {
                            fill_slice(*solver, p.air.grid, plane_axis, plane_index, live);
                            observer.slice(live);
                        }
                        // Grow or shrink by halves: a per-call cost in advance() must not keep the
                        // chunks small.
                        if (n == chunk && quick) chunk *= 2;
                        if (slow && chunk > 1) chunk /= 2;
                    }
                } catch (const SolverError& e) {
                    observer.progress(solver->steps_done());
                    observer.source_stopped();
                    // A plain run's temporary directory goes; a checkpointed run's stays, with
                    // the sources it finished (resuming would meet the same failure).
                    if (root && !partial) dir_slot->discard();
                    throw SolverError(
                        "the simulation of source " + src_name + " failed: " + e.what() +
                        (partial ? "; the partial run is kept in " + quoted_path(tmp_dir) +
                                       " with the sources finished before it (resuming meets "
                                       "the same failure: keep what you need, then delete it)"
                                 : std::string()));
                }
                solved.solve_s = seconds_since(t0);
                observer.source_end();
                if (comm && !by_sources && s == 0) distribution = rank_parts(*solver, *comm);
                solved.dt = solver->dt();
                solved.steps = solver->steps_done();
                solved.solver_name = solver->name();
                solved.memory = solver->memory_bytes();
                if (!hold_signals) solver->take_signals(solved.receivers, solved.grid);
            }
            if (by_sources && owner != 0) {
                if (!root) {
                    send_solved(solved, *comm);
                    continue;
                }
                observer.stage("Receiving " + src_name + " from rank " + std::to_string(owner) +
                               " ...");
                solved = receive_solved(*comm, owner);
            }
            if (!root) continue;  // rank 0 holds the gathered signals and writes
            const double dt = solved.dt;
            const Excitation ex = Excitation::for_band(scene.simulation.max_frequency, dt);
            solver_json = {{"name", solved.solver_name},
                           {"device", device_of(solved.solver_name)},
                           {"dt", dt},
                           {"simulation_rate", 1.0 / dt},
                           {"steps", steps_needed(dt, ex.delay(), duration)}};
            excitation_json = {{"f_max", ex.f_max},
                               {"flat_from_hz", ex.f_pass_lo},
                               {"flat_to_hz", ex.f_pass_hi},
                               {"delay_s", ex.delay()}};
            if (by_sources) distribution["sources"][src_name] = owner;
            std::vector<FullBand::Ambisonic> geo;
            std::optional<auralize::GridGeometric> grid_geo;
            const auto tg = std::chrono::steady_clock::now();
            if (beside) {
                observer.stage("Finishing the rays from " + src_name +
                               " (traced while the GPU solved) ...");
                auto traced = beside->take(observer, stop);
                beside.reset();
                if (!traced) {
                    if (partial && !comm) save_checkpoint();
                    throw Interrupted{};
                }
                geo = std::move(traced->receivers);
                grid_geo = std::move(traced->grid);
            } else if (full) {
                observer.stage("Tracing rays from " + src_name + " ...");
                auto traced = full->run(s, observer, stop);
                if (!traced) {
                    // Rank 0 alone traces rays: the other ranks cannot save with it now, and
                    // a resumed run takes the source up at its last checkpoint.
                    if (partial && !comm) save_checkpoint();
                    throw Interrupted{};
                }
                geo = std::move(*traced);
                if (scene.listener_grid_cells() > 0) {
                    observer.stage("Tracing rays from " + src_name + " for the listener grid ...");
                    grid_geo = full->grid(s, observer, stop);
                    if (!grid_geo) {
                        if (partial && !comm) save_checkpoint();
                        throw Interrupted{};
                    }
                }
            }
            if (full) geometric_wait_s += seconds_since(tg);
            if (hold_signals) solver->take_signals(solved.receivers, solved.grid);
            finish_pending();
            // With a later source to solve on the GPU, this one's files are written during its
            // solve: the CPU's cores are idle then (docs/benchmarks.md, issue 21's four sources).
            // A checkpointed run records a source as done only once its files are written, and
            // rank 0 of a distributed run solves with the others: those write here and now.
            const WriteDuringSolve when = settings.write_during_solve;
            const bool write_beside =
                !partial && !comm && s + 1 < n_src && when != WriteDuringSolve::Never &&
                (when == WriteDuringSolve::Always || device_of(solved.solver_name) == "cuda");
            runs.push_back({src_name, solved.solve_s, solved.setup_s, solved.steps,
                            solved.solver_name, solved.memory});
            if (write_beside) {
                pending.emplace();
                pending->source = src_name;
                pending->job = std::async(
                    std::launch::async, [&files_of, s, relay = pending->relay.get(),
                                         failed = pending->failed, solved = std::move(solved),
                                         geo = std::move(geo), grid_geo = std::move(grid_geo)] {
#ifdef __linux__
                        // Below the solver's host thread, above the rays (nice is per thread on
                        // Linux, and the write's worker threads inherit it).
                        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);
#endif
                        try {
                            return write_source_files(files_of, s, solved, geo,
                                                      grid_geo ? &*grid_geo : nullptr, *relay);
                        } catch (...) {
                            failed->store(true);
                            throw;
                        }
                    });
            } else {
                observer.stage("Writing " + src_name + " ...");
                const auto tw = std::chrono::steady_clock::now();
                WrittenSource w = write_source_files(files_of, s, solved, geo,
                                                     grid_geo ? &*grid_geo : nullptr, observer);
                take_written(w);
                write_waited_s += seconds_since(tw);
            }
            if (partial) {
                state["sources_done"].push_back(src_name);
                state["runs"].push_back({{"name", src_name},
                                         {"solve_s", solved.solve_s},
                                         {"setup_s", solved.setup_s},
                                         {"steps", solved.steps},
                                         {"solver", solved.solver_name},
                                         {"memory_bytes", solved.memory}});
                state["current"] = nullptr;
                state["solver"] = solver_json;
                state["excitation"] = excitation_json;
                write_json_file(state_file, state);
                remove_checkpoints(s, static_cast<size_t>(-1));
            }
        }
        finish_pending();
        stop_point(stop);
        if (!root) return SimulateResult{};

        // result.json
        const auto& sim = scene.simulation;
        const int grid_every = scene.listener_grid_cells();
        json settings_json = {{"solver", sim.solver},
                              {"device", sim.device},
                              {"precision", precision_name},
                              {"threads", settings.threads},
                              {"ranks", comm ? comm->size() : 1},
                              {"max_frequency", sim.max_frequency},
                              {"duration", sim.duration},
                              {"points_per_wavelength", sim.effective_points_per_wavelength()},
                              {"speed_of_sound", sim.speed_of_sound},
                              {"partition_sides", sim.partition_sides},
                              {"band", sim.band},
                              {"output_sample_rate", fs_out},
                              {"listener_grid_every", grid_every},
                              {"listener_grid_spacing_m", p.air.grid.h * grid_every},
                              {"air",
                               {{"temperature", scene.air.temperature_c},
                                {"humidity", scene.air.relative_humidity},
                                {"pressure", scene.air.pressure_kpa},
                                {"absorption", scene.air.absorption}}}};
        // A spacing in metres becomes whole cells: the asked spacing beside the one used.
        if (scene.listener_grid_spacing_m > 0)
            settings_json["listener_grid_requested_spacing_m"] = scene.listener_grid_spacing_m;
        auto emitters = [](const std::vector<PlacedEmitter>& v) {
            json a = json::array();
            for (const auto& e : v)
                a.push_back({{"name", e.name},
                             {"position", vec_json(e.position)},
                             {"cell_centre", vec_json(e.cell_centre)}});
            return a;
        };
        json files = {{"ir", json::array()}, {"ambix", json::array()}, {"grid", json::array()}};
        for (const auto& s : p.air.sources) {
            for (const auto& r : p.air.receivers) {
                const std::string pair = safe_name(s.name) + "_" + safe_name(r.name) + ".wav";
                files["ir"].push_back("ir/" + pair);
                files["ambix"].push_back("ambix/" + pair);
            }
            if (scene.listener_grid_cells() > 0)
                files["grid"].push_back("grid/" + safe_name(s.name) + ".h5");
        }
        json solve = json::object(), setup = json::object();
        size_t solver_memory = 0;
        for (const auto& r : runs) {
            solve[r.name] = r.solve_s;
            setup[r.name] = r.setup_s;
            solver_memory = std::max(solver_memory, r.solver_memory);
        }
        const ResourceEstimate est = p.estimate();
        const Grid& g = p.air.grid;
        json result = {
            {"format", "ardent-result/1"},
            {"ardent_version", "0.1.0"},
            {"scene",
             {{"file", scene.file.empty() ? "" : fs::absolute(scene.file).string()},
              {"name", scene.name},
              {"hash", hash}}},
            {"settings", settings_json},
            {"solver", solver_json},
            {"excitation", excitation_json},
            {"band", full ? full->report() : json{{"mode", "wave"}}},
            {"ir",
             {{"sample_rate", fs_out},
              {"samples", std::llround(duration * fs_out)},
              {"format", "wav-float32"},
              {"convention",
               "free-field direct pulse sums to 1/(4 pi r); see docs/output-format.md"}}},
            {"grid",
             {{"origin", vec_json(g.origin)},
              {"h", g.h},
              {"dims", json::array({g.dims[0], g.dims[1], g.dims[2]})}}},
            {"sources", emitters(p.air.sources)},
            {"receivers", emitters(p.air.receivers)},
            {"files", files},
            // The receivers' AmbiX files (ambix/): third order above a full-band run's crossover
            // (first order below it), first order in a wave-band run.
            {"ambix_order", full ? FullBand::kAmbisonicOrder : 1},
            {"acoustics", acoustics},
            {"statistics", info_json(p)},
            {"memory",
             {{"estimate_bytes", sim.solver == "fdtd" ? est.memory_fdtd
                                 : solver_json.value("device", "") == "cuda"
                                     ? est.memory_ard_gpu_host
                                     : est.memory_ard_cpu},
              {"solver_bytes", solver_memory},
              {"peak_rss_bytes", peak_rss_bytes()}}},
            {"timings_s",
             {{"import", p.times.import_s},
              {"voxelize", p.times.voxelize_s},
              {"decompose", p.times.decompose_s},
              {"preprocess", preprocess_s},
              {"solve", solve},
              {"solver_setup", setup},
              {"geometric", full ? full->seconds() : 0.0},
              {"geometric_waited", geometric_wait_s},
              {"write", write_s},
              {"write_waited", write_waited_s},
              {"total", seconds_since(t_start)}}},
        };
        if (comm) result["distributed"] = distribution;
        result["warnings"] = warnings;
        if (partial) {
            std::error_code ec;
            fs::remove_all(ckdir, ec);
        }
        write_json_file(tmp_dir / "result.json", result);
        stop_point(stop);
        dir_slot->commit();
        SimulateResult out;
        out.directory = target;
        out.ir_files = files["ir"].get<std::vector<std::string>>();
        out.grid_files = files["grid"].get<std::vector<std::string>>();
        out.seconds = seconds_since(t_start);
        out.band = full ? full->summary(solver_json.value("name", sim.solver))
                        : solver_json.value("name", sim.solver) + " only, flat to " +
                              std::to_string(std::lround(0.8 * sim.max_frequency)) + " Hz";
        return out;
    } catch (const Interrupted&) {
        if (partial && fs::is_directory(OutputDir::partial_path(target)))
            throw Cancelled(OutputDir::partial_path(target));
        throw Cancelled({});
    }
}

}  // namespace ardent::pipeline
