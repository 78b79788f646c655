// The FDTD validation scenarios of spec section 6, parametrised by size so that the CI suite
// (test_fdtd_validation.cpp) runs small versions and the `long` label
// (test_fdtd_validation_long.cpp) the full ones: the normal-incidence reflection of an absorbing
// duct end, energy of long source-free runs, and third-octave levels of the same source-receiver IR
// from FDTD and ARD in the L-shaped room. Each prints its measured numbers ("[ measured ]").
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ard_validation.h"
#include "ardent/auralize/filter_bank.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/solver.h"
#include "signal_tools.h"

namespace ardent::test::fdtd_validation {

inline constexpr double kSpeed = 343.0;

// ---- Normal-incidence reflection -------------------------------------------------------------

// A duct along x of length x width x width FDTD cells (10 points per wavelength at f_max), rigid
// except for an optional absorbing far end (wall_x1), the source at the rigid end (its mirror
// image merges with it) and a whole cross-section of receivers at receiver_x, averaged into the
// plane wave.
struct Duct {
    int length = 2048;
    int width = 2;
    double f_max = 1000;
    int receiver_x = 1200;
    double alpha = -1;  // < 0: rigid far end
    // The far end's absorption as scene JSON (e.g. per band, {"250": 0.1, ...}) instead of alpha.
    std::string absorption;
};

inline double duct_h(const Duct& d) {
    return kSpeed / (10 * d.f_max);
}

inline std::string duct_json(const Duct& d) {
    const double h = duct_h(d);
    std::ostringstream s;
    s.precision(17);
    const double mid = 0.5 * d.width * h;  // a cell face for an even width: snaps to one side
    s << R"({"format": "ardent-scene/1", "name": "fdtd duct", "geometry": {"box": [)"
      << d.length * h << ", " << d.width * h << ", " << d.width * h << "]},"
      << R"( "materials": {"rigid": {"absorption": 0.0}, "absorber": {"absorption": )"
      << (d.absorption.empty() ? std::to_string(std::max(d.alpha, 0.0)) : d.absorption) << "}}, "
      << R"("surfaces": {)"
      << (d.alpha >= 0 || !d.absorption.empty() ? R"("wall_x1": "absorber", )" : "")
      << R"("*": "rigid"},)"
      << R"( "sources": [{"name": "S", "position": [)" << 0.5 * h << ", " << mid << ", " << mid
      << "]}], "
      << R"("receivers": [)";
    for (int k = 0; k < d.width; ++k)
        for (int j = 0; j < d.width; ++j)
            s << (j || k ? ", " : "") << R"({"name": "R)" << j << k << R"(", "position": [)"
              << (d.receiver_x + 0.5) * h << ", " << (j + 0.5) * h << ", " << (k + 0.5) * h << "]}";
    s << R"(], "simulation": {"band": "wave", "solver": "fdtd", "device": "cpu", "max_frequency": )"
      << d.f_max << R"(, "duration": 1.0, "speed_of_sound": )" << kSpeed << "}}";
    return s.str();
}

struct DuctRun {
    std::vector<double> p;  // plane-wave pressure at the receiver section
    double dt = 0, pulse = 0;
    Excitation excitation;
};

inline DuctRun run_duct(const Duct& d, size_t steps) {
    const Preprocessed p = preprocess(parse_scene(duct_json(d), "duct.json"));
    EXPECT_EQ(p.air.receivers.size(), static_cast<size_t>(d.width * d.width));
    SolverOptions o;
    o.precision = Precision::Float64;
    o.listener_grid = false;
    // One thread: a few thousand cells a step; two threads meeting at a barrier every step cost
    // far more than the step when other jobs share the cores (ctest -j2).
    o.threads = 1;
    auto solver = make_solver(p, o);
    solver->advance(steps);
    DuctRun r;
    r.p = validation::average(solver->receivers());
    r.dt = solver->dt();
    r.excitation = solver->excitation();
    r.pulse = 2 * r.excitation.delay();
    return r;
}

// |R| in band (0.05-0.8 f_max) of the duct's absorbing end: the run with it minus a clean
// reference (the same duct twice as long and rigid), against the reference's incident pulse.
inline validation::ReflectionResult duct_reflection(const Duct& d) {
    validation::Stopwatch w;
    const double h = duct_h(d);
    const DuctRun probe = run_duct(d, 1);
    const double lambda = kSpeed * probe.dt / h;  // cells travelled per step
    const double pulse_cells = probe.pulse / probe.dt * lambda + 10;
    const double reflected_at = 2.0 * d.length - d.receiver_x;
    const double rereflected_at = reflected_at + 2.0 * d.receiver_x - 10;
    EXPECT_GT(rereflected_at, reflected_at + pulse_cells) << "receiver too close to the source";
    EXPECT_GT(static_cast<double>(d.receiver_x), pulse_cells) << "incident pulse too long";
    const auto steps = static_cast<size_t>(std::floor(rereflected_at / lambda)) + 1;
    const DuctRun feature = run_duct(d, steps);
    Duct clean = d;
    clean.length *= 2;
    clean.alpha = -1;
    clean.absorption.clear();
    const DuctRun ref = run_duct(clean, steps);
    std::vector<double> diff(steps);
    for (size_t i = 0; i < steps; ++i)
        diff[i] = feature.p[i] - ref.p[i];
    const auto incident_end = static_cast<size_t>(std::floor(reflected_at / lambda));
    char label[96];
    char csv[64];
    if (d.absorption.empty()) {
        std::snprintf(label, sizeof label, "FDTD absorbing duct end, alpha %.1f", d.alpha);
        std::snprintf(csv, sizeof csv, "fdtd_reflection_alpha%.1f.csv", d.alpha);
    } else {
        std::snprintf(label, sizeof label, "FDTD frequency-dependent duct end");
        std::snprintf(csv, sizeof csv, "fdtd_reflection_per_band.csv");
    }
    validation::ReflectionResult r = validation::reflection(
        ref.p, incident_end, diff, steps, ref.dt, ref.excitation.f_max, csv, label);
    r.seconds = w.seconds();
    std::printf("[ measured ] %s: duct %dx%dx%d cells, f_max %.0f Hz, %zu steps; %.2f s\n", label,
                d.length, d.width, d.width, d.f_max, steps, r.seconds);
    return r;
}

// ---- Source-free runs --------------------------------------------------------------------------

struct EnergyResult {
    double max_ratio = 0;        // largest sum p^2 / initial
    double last_over_first = 0;  // mean of the last tenth of the samples / the first tenth
    double seconds = 0;
};

// From a random field (both time levels equal: at rest), `steps` steps sampled `samples` times.
// Sum p^2 is not the scheme's conserved energy (that adds the kinetic part), so it swings as
// potential and kinetic energy trade; a growing mode would show as a rising trend.
inline EnergyResult energy_run(const Preprocessed& p, Precision precision, size_t steps,
                               size_t samples, const char* what) {
    SolverOptions o;
    o.precision = precision;
    o.listener_grid = false;
    o.inject_source = false;
    auto solver = make_solver(p, o);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    const Grid& g = p.air.grid;
    for (size_t i = 0; i < g.count(); ++i)
        if (p.air.air[i]) solver->set_pressure(g.coords(i), u(rng));
    validation::Stopwatch w;
    const double initial = solver->field_energy();
    std::vector<double> e;
    for (size_t k = 0; k < samples; ++k) {
        solver->advance(steps / samples);
        e.push_back(solver->field_energy() / initial);
    }
    EnergyResult r;
    r.seconds = w.seconds();
    r.max_ratio = *std::max_element(e.begin(), e.end());
    const size_t tenth = std::max<size_t>(1, samples / 10);
    double first = 0, last = 0;
    for (size_t k = 0; k < tenth; ++k) {
        first += e[k];
        last += e[e.size() - tenth + k];
    }
    r.last_over_first = last / first;
    std::printf(
        "[ measured ] %s, %s, %zu air cells, %zu steps from a random field: max sum p^2 / "
        "initial %.4f, mean of the last tenth / first tenth %.4f; %.1f s\n",
        what, solver->name().c_str(), p.air.air_cells, steps, r.max_ratio, r.last_over_first,
        r.seconds);
    return r;
}

// ---- FDTD vs ARD in the L-shaped room
// ------------------------------------------------------------

// f_max and the two grids: the room's sides (multiples of 1 m) are whole numbers of cells on both
// grids, so neither solver's walls move in voxelisation and both simulate the same room. ARD cells
// are 1 / ard_cells_per_metre m, FDTD cells a third of that at 10 points per wavelength (ARD then
// has 3.33 points per wavelength, a little finer than its default 2.6). With an odd ratio every ARD
// cell centre is an FDTD cell centre: the source and receivers are moved (by at most 0.1 m) onto
// such centres, so both solvers compute the IR between the same two points.
struct LRoomSetup {
    int ard_cells_per_metre = 5;
    double duration = 0.5;  // s of IR compared
    bool rigid = false;     // every surface rigid (the scene's materials otherwise)
    double f_max() const { return kSpeed * 3 * ard_cells_per_metre / 10.0; }
};

// The nearest ARD cell centre to x (cell faces at multiples of h from the room's corner at 0).
inline double common_centre(double x, int cells_per_metre) {
    const double h = 1.0 / cells_per_metre;
    return (std::floor(x / h) + 0.5) * h;
}

inline Scene lroom_scene(const LRoomSetup& s, bool fdtd) {
    Scene scene = load_scene(std::string(ARDENT_SOURCE_DIR) + "/data/scenes/lshape.json");
    scene.listener_grid_every = 0;
    scene.simulation.device = "cpu";
    scene.simulation.speed_of_sound = kSpeed;
    scene.simulation.max_frequency = s.f_max();
    scene.simulation.duration = s.duration;
    scene.simulation.solver = fdtd ? "fdtd" : "ard";
    scene.simulation.band = "wave";
    scene.simulation.points_per_wavelength = fdtd ? 10.0 : 10.0 / 3.0;
    if (s.rigid)
        for (Material& m : scene.materials)
            m.set_uniform(0.0);
    for (auto* list : {&scene.sources, &scene.receivers})
        for (Emitter& e : *list)
            e.position = {common_centre(e.position.x, s.ard_cells_per_metre),
                          common_centre(e.position.y, s.ard_cells_per_metre),
                          common_centre(e.position.z, s.ard_cells_per_metre)};
    return scene;
}

struct SolverRun {
    std::string name;
    std::vector<std::vector<double>> receivers;
    double dt = 0;
    size_t air_cells = 0, steps = 0;
    double seconds = 0;                  // time stepping only
    double setup_s = 0;                  // preprocessing and solver construction
    std::vector<Vec3> receiver_centres;  // where the receivers snapped
};

inline SolverRun run_lroom(const LRoomSetup& s, bool fdtd, int threads = 0) {
    validation::Stopwatch ws;
    const Preprocessed p = preprocess(lroom_scene(s, fdtd));
    SolverOptions o;
    o.precision = Precision::Float32;  // what a user runs; float64 agrees to ~1e-6 here
    o.listener_grid = false;
    o.threads = threads;
    auto solver = make_solver(p, o);
    SolverRun r;
    r.setup_s = ws.seconds();
    r.steps = static_cast<size_t>(std::ceil(s.duration / solver->dt()));
    validation::Stopwatch w;
    solver->advance(r.steps);
    r.seconds = w.seconds();
    r.name = solver->name();
    r.receivers = solver->receivers();
    r.dt = solver->dt();
    r.air_cells = p.air.air_cells;
    for (const PlacedEmitter& e : p.air.receivers)
        r.receiver_centres.push_back(e.cell_centre);
    return r;
}

// Third-octave band energies of an IR at rate 1/dt, made rate-independent: a discrete IR whose
// spectrum is H per sample has sum y^2 = 2 B |H|^2 dt over a band of width B, so sum y^2 / dt is
// what two solvers with different time steps share.
inline std::vector<double> third_octave_energies(const std::vector<double>& ir, double dt,
                                                 std::vector<double>& centres, double f_top) {
    const std::vector<float> x(ir.begin(), ir.end());
    std::vector<double> e;
    centres.clear();
    for (const auto& band : auralize::filter_bank(auralize::Bands::Third, 1 / dt)) {
        if (band.upper_hz > f_top) continue;
        const auto y = auralize::band_signal(band, x, auralize::Direction::Forward);
        double sum = 0;
        for (double v : y)
            sum += v * v;
        // Oversampled bands come back at the higher rate: its sample period.
        e.push_back(sum * band.sample_rate);
        centres.push_back(band.nominal_hz);
    }
    return e;
}

struct LevelComparison {
    std::vector<double> centres, diff_db;  // FDTD level - ARD level per band
    double worst_db = 0;
    SolverRun fdtd, ard;
};

inline LevelComparison compare_levels(const SolverRun& fdtd, const SolverRun& ard, double f_top,
                                      int receiver) {
    LevelComparison c;
    c.fdtd = fdtd;
    c.ard = ard;
    std::vector<double> ca;
    const auto ef = third_octave_energies(fdtd.receivers.at(static_cast<size_t>(receiver)), fdtd.dt,
                                          c.centres, f_top);
    const auto ea =
        third_octave_energies(ard.receivers.at(static_cast<size_t>(receiver)), ard.dt, ca, f_top);
    EXPECT_EQ(c.centres, ca);
    for (const SolverRun* run : {&fdtd, &ard}) {
        const auto& ir = run->receivers.at(static_cast<size_t>(receiver));
        write_validation_csv("lshape_" + run->name + "_r" + std::to_string(receiver) + ".csv",
                             {"t_s", "p"}, {validation::times(ir.size(), run->dt, 0), ir});
    }
    for (size_t b = 0; b < std::min(ef.size(), ea.size()); ++b) {
        c.diff_db.push_back(10 * std::log10(ef[b] / ea[b]));
        c.worst_db = std::max(c.worst_db, std::abs(c.diff_db.back()));
    }
    return c;
}

inline void print_levels(const LevelComparison& c, const LRoomSetup& s, int receiver) {
    const Vec3 fc = c.fdtd.receiver_centres.at(static_cast<size_t>(receiver));
    const Vec3 ac = c.ard.receiver_centres.at(static_cast<size_t>(receiver));
    std::printf(
        "[ measured ] L-shaped room, f_max %.1f Hz, %.2f s IR, receiver %d (FDTD cell centre "
        "%.3f %.3f %.3f, ARD %.3f %.3f %.3f): FDTD %s %zu air cells %zu steps %.2f s (+%.2f s "
        "setup); ARD %s %zu air cells %zu steps %.2f s (+%.2f s setup); third-octave FDTD - ARD "
        "(dB):",
        s.f_max(), s.duration, receiver, fc.x, fc.y, fc.z, ac.x, ac.y, ac.z, c.fdtd.name.c_str(),
        c.fdtd.air_cells, c.fdtd.steps, c.fdtd.seconds, c.fdtd.setup_s, c.ard.name.c_str(),
        c.ard.air_cells, c.ard.steps, c.ard.seconds, c.ard.setup_s);
    for (size_t b = 0; b < c.diff_db.size(); ++b)
        std::printf(" %.0f Hz %+.2f%s", c.centres[b], c.diff_db[b],
                    b + 1 < c.diff_db.size() ? "," : "");
    std::printf("; worst |difference| %.2f dB\n", c.worst_db);
}

// Both solvers on the L-shaped room of `s` (run_lroom with `threads`): every receiver's
// third-octave levels below 0.8 f_max within 1 dB, in at least `min_bands` bands.
inline void expect_lroom_levels_match(const LRoomSetup& s, size_t min_bands, int threads = 0) {
    const SolverRun fdtd = run_lroom(s, true, threads);
    const SolverRun ard = run_lroom(s, false, threads);
    for (int r = 0; r < static_cast<int>(fdtd.receivers.size()); ++r) {
        const LevelComparison c = compare_levels(fdtd, ard, 0.8 * s.f_max(), r);
        print_levels(c, s, r);
        EXPECT_GE(c.diff_db.size(), min_bands);
        EXPECT_LE(c.worst_db, 1.0) << "receiver " << r;
    }
}

}  // namespace ardent::test::fdtd_validation
