// `ardent simulate`: the command-line front end of pipeline::simulate() (spec section 4): options
// and the scene overrides, Ctrl-C and SIGTERM as the stop flag, the progress bar, and the run's
// outcome as messages and exit codes (0 done, 1 a solver failure, 128 + signal when interrupted;
// main() maps bad input and resources to 2 and 3).
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "ardent/distributed/mpi.h"
#include "ardent/pipeline/simulate.h"
#include "ardent/pipeline/simulate_output.h"
#include "ardent/pipeline/stop_signals.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/safe_output.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/wall_admittance.h"
#include "ardent/solvers/solver.h"
#include "commands.h"
#include "progress.h"
#include "validators.h"

namespace ardent::cli {
namespace fs = std::filesystem;

namespace {

struct Opts {
    std::string scene;
    std::string out;
    std::string solver, device, precision = "float32";
    double max_frequency = 0, duration = 0;
    int threads = 0;
    bool quiet = false, force = false, resume = false;
    std::string distributed;  // "", "partitions" or "sources"
    size_t checkpoint_every = 0;
};

// The run's reports on the progress bar: one task per source (and its rays, full band).
class ProgressObserver final : public pipeline::SimulateObserver {
  public:
    explicit ProgressObserver(Progress& progress) : progress_(progress) {}
    void source_begin(const std::string& name, size_t index, size_t count, size_t total_steps,
                      size_t steps_done) override {
        char label[160];
        std::snprintf(label, sizeof label, "%s (%zu/%zu)", name.c_str(), index + 1, count);
        progress_.begin(label, total_steps, "steps", steps_done);
    }
    void progress(size_t steps_done) override { progress_.update(steps_done); }
    // Printed even with --quiet, as the material warnings are.
    void warning(const std::string& text) override {
        std::fprintf(stderr, "ardent: warning: %s\n", text.c_str());
    }
    void source_end() override { progress_.end(); }
    void source_stopped() override { progress_.abandon(); }
    void geometric_begin(const std::string& source, size_t rays) override {
        progress_.begin(source + " rays", rays, "rays");
    }
    void geometric_progress(size_t rays_done) override { progress_.update(rays_done); }
    void geometric_end() override { progress_.end(); }
    void geometric_stopped() override { progress_.abandon(); }
    void write_begin(const std::string& source, size_t irs) override {
        progress_.begin(source + " write", irs, "IRs");
    }
    void write_progress(size_t irs_done) override { progress_.update(irs_done); }
    void write_end() override { progress_.end(); }

  private:
    Progress& progress_;
};

int run(const Opts& o, Communicator* comm) {
    const bool root = !comm || comm->root();
    Scene scene = load_scene(o.scene);
    if (!o.solver.empty()) scene.simulation.solver = o.solver;
    if (!o.device.empty()) scene.simulation.device = o.device;
    if (o.max_frequency > 0) scene.simulation.max_frequency = o.max_frequency;
    if (o.duration > 0) scene.simulation.duration = o.duration;
    if (o.duration > 0 && o.duration * scene.output_sample_rate < 1) {  // IRs of no samples
        char given[32];
        std::snprintf(given, sizeof given, "%g", o.duration);
        throw InputError(std::string("--duration: ") + given +
                         " s is shorter than one output sample (1/" +
                         std::to_string(scene.output_sample_rate) + " s at output.sample_rate)");
    }
    pipeline::SimulateSettings settings;
    settings.output =
        o.out.empty() ? fs::path(fs::path(o.scene).stem().string() + ".ardent") : fs::path(o.out);
    // "-o out/" names the folder out: its lock file and temporary folders go beside it.
    if (!settings.output.has_filename()) settings.output = settings.output.parent_path();
    settings.force = o.force;
    settings.resume = o.resume;
    settings.precision = o.precision == "float64" ? Precision::Float64 : Precision::Float32;
    settings.threads = o.threads;
    settings.checkpoint_every = o.checkpoint_every;
    settings.comm = comm;
    settings.distribution = o.distributed == "sources" ? pipeline::Distribution::Sources
                                                       : pipeline::Distribution::Partitions;
    if (comm) settings.gpu = distributed::local_rank();
    // Refused before anything is printed (simulate() checks again, holding the lock for the run).
    if (root) {
        const OutputLock probe(settings.output);  // another run to this output?
        pipeline::OutputDir::check_target(settings.output, settings.force, scene_inputs(scene));
        pipeline::OutputDir::check_partial(settings.output, settings.resume);
    } else {
        pipeline::OutputDir::check_target(settings.output, settings.force, scene_inputs(scene));
    }
    // Coefficients no locally reacting wall reaches, and bands the fit misses (ardent info lists
    // them too): the run goes on with the closest wall.
    for (const WallFit& f : fit_walls(scene))
        for (const std::string& w : root ? f.warnings : std::vector<std::string>{})
            std::fprintf(stderr, "ardent: warning: material \"%s\": %s\n", f.material.c_str(),
                         w.c_str());

    const pipeline::StopSignals signals;
    Progress progress(o.quiet || !root);  // one progress bar: rank 0's
    ProgressObserver observer(progress);
    progress.note("Preprocessing " + scene.display_name() + " ...");
    try {
        const pipeline::SimulateResult r =
            pipeline::simulate(std::move(scene), settings, observer, pipeline::StopSignals::flag());
        if (!root) return 0;
        progress.note(
            "Wrote " + r.directory.string() + " (" + std::to_string(r.ir_files.size()) + " IRs" +
            (r.grid_files.empty() ? std::string()
                                  : ", " + std::to_string(r.grid_files.size()) + " grid files") +
            ") in " + Progress::duration_text(r.seconds) + "; " + r.band);
        return 0;
    } catch (const SolverError& e) {
        if (root) std::fprintf(stderr, "ardent: %s\n", e.what());
        return 1;
    } catch (const pipeline::Cancelled& e) {
        if (root) std::fprintf(stderr, "ardent: %s\n", e.what());
        return pipeline::StopSignals::exit_code();
    }
}

// `mpirun -n N ardent simulate ... --distributed`: every rank runs run(); a rank that fails ends
// them all (the others would wait for it), with the exit code it would have had alone. Input
// errors are the same on every rank: rank 0 reports them.
int run_distributed(const Opts& o) {
    std::unique_ptr<Communicator> comm = distributed::mpi_world();
    int code = 0;
    std::string message;
    try {
        return run(o, comm.get());
    } catch (const InputError& e) {
        code = 2;
        message = comm->root() ? std::string("error: ") + e.what() : std::string();
    } catch (const ResourceError& e) {
        code = 3;
        message = std::string("not enough resources: ") + e.what();
    } catch (const std::exception& e) {
        code = 1;
        message = std::string("internal error: ") + e.what();
    }
    if (!message.empty())
        std::fprintf(stderr, "ardent%s: %s\n",
                     comm->root() ? "" : (" (rank " + std::to_string(comm->rank()) + ")").c_str(),
                     message.c_str());
    std::fflush(stderr);
    // Rank 0 reports an input error (every rank meets it) and ends the run: the others give it
    // time to, rather than ending it before it has printed.
    if (code == 2 && !comm->root()) std::this_thread::sleep_for(std::chrono::seconds(5));
    distributed::abort_all(code);
    return code;
}

}  // namespace

Action add_simulate(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "simulate", "Run the wave solver and write impulse responses, IR grids and result.json");
    auto o = std::make_shared<Opts>();
    cmd->add_option("SCENE", o->scene, "Scene file (ardent-scene/1 JSON)")->required();
    cmd->add_option("-o,--output", o->out,
                    "Results directory (default: ./<scene file name>.ardent); written atomically");
    cmd->add_option("--solver", o->solver, "Override simulation.solver")
        ->check(CLI::IsMember({"ard", "fdtd"}));
    cmd->add_option("--device", o->device, "Override simulation.device")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd->add_option("--max-frequency", o->max_frequency, "Override simulation.max_frequency (Hz)")
        ->check(finite_positive());
    cmd->add_option("--duration", o->duration, "Override simulation.duration (s, at most 3600)")
        ->check(finite_positive(3600));
    cmd->add_option("--threads", o->threads, "Worker threads (default: every core)")
        ->check(thread_count());
    cmd->add_option("--precision", o->precision, "Arithmetic of the solver (default float32)")
        ->check(CLI::IsMember({"float32", "float64"}));
    cmd->add_flag("--quiet", o->quiet, "No progress output");
    cmd->add_flag("--force", o->force,
                  "Replace an existing results directory (once the new one is complete)");
    cmd->add_option("--checkpoint-every", o->checkpoint_every,
                    "Save the solver state every N steps into <DIR>.tmp-partial/")
        ->check(whole_number(1));
    cmd->add_flag("--resume", o->resume, "Continue the checkpointed run in <DIR>.tmp-partial/");
    cmd->add_flag("--distributed{partitions}", o->distributed,
                  "Spread the run over the processes of an MPI launch (mpirun -n N ...): "
                  "--distributed splits the room (ARD), --distributed=sources gives each rank "
                  "whole sources; rank 0 writes the results")
        ->check(CLI::IsMember({"partitions", "sources"}));
    return [o]() {
        const int launched = distributed::launched_ranks();
        if (launched > 1 && o->distributed.empty())
            throw InputError("this process is one of " + std::to_string(launched) +
                             " started by an MPI launcher: add --distributed to spread one run "
                             "over them (without it each would run the whole scene into the "
                             "same results directory)");
        return o->distributed.empty() ? run(*o, nullptr) : run_distributed(*o);
    };
}

}  // namespace ardent::cli
