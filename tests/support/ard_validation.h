// The ARD validation scenarios of spec section 6, parametrised by size so that the CI suite
// (test_ard_validation.cpp) runs small versions and the `long` label (test_ard_validation_long.cpp)
// the full ones. Each scenario builds a box scene (a rigid room or a duct), runs the real solver
// through make_solver(), compares with an analytic reference, prints the measured number and, when
// ARDENT_VALIDATION_OUT is set, writes a CSV for scripts/plot_validation.py.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/wall_admittance.h"
#include "ardent/solvers/solver.h"
#include "image_source.h"
#include "signal_tools.h"

namespace ardent::test::validation {

inline constexpr double kSpeed = 343.0;
inline constexpr double kPpw = 2.6;

inline double cell_size(double f_max) {
    return kSpeed / (kPpw * f_max);
}

class Stopwatch {
  public:
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

  private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// A `box` scene of nx x ny x nz cells (sides exactly n h), rigid except for one optional absorbing
// face group (floor, ceiling, wall_x0, wall_x1, wall_y0, wall_y1). Emitters sit on cell centres
// (cell indices counted from the box corner).
struct BoxSpec {
    Index3 cells{16, 16, 8};
    double f_max = 500;
    std::string absorbing_face;  // empty: all rigid
    double alpha = 0;
    std::string absorption;  // the face's absorption as scene JSON (e.g. per band) instead of alpha
    Index3 source{0, 0, 0};
    std::vector<Index3> receivers;
    int max_partition_side = 1024;
};

inline std::string box_scene_json(const BoxSpec& b) {
    const double h = cell_size(b.f_max);
    std::ostringstream s;
    s.precision(17);
    auto pos = [&](Index3 c) {
        std::ostringstream p;
        p.precision(17);
        p << "[" << (c[0] + 0.5) * h << ", " << (c[1] + 0.5) * h << ", " << (c[2] + 0.5) * h << "]";
        return p.str();
    };
    s << R"({"format": "ardent-scene/1", "name": "validation box",)"
      << R"( "geometry": {"box": [)" << b.cells[0] * h << ", " << b.cells[1] * h << ", "
      << b.cells[2] * h << "]},"
      << R"( "materials": {"rigid": {"absorption": 0.0})";
    if (!b.absorbing_face.empty()) {
        s << R"(, "absorber": {"absorption": )";
        if (b.absorption.empty())
            s << b.alpha;
        else
            s << b.absorption;
        s << "}";
    }
    s << R"(}, "surfaces": {)";
    if (!b.absorbing_face.empty()) s << "\"" << b.absorbing_face << R"(": "absorber", )";
    s << R"("*": "rigid"}, "sources": [{"name": "S", "position": )" << pos(b.source)
      << R"(}], "receivers": [)";
    for (size_t r = 0; r < b.receivers.size(); ++r)
        s << (r ? ", " : "") << R"({"name": "R)" << r << R"(", "position": )" << pos(b.receivers[r])
          << "}";
    s << R"(], "simulation": {"band": "wave", "solver": "ard", "device": "cpu", "max_frequency": )"
      << b.f_max << R"(, "duration": 1.0, "points_per_wavelength": )" << kPpw
      << R"(, "speed_of_sound": )" << kSpeed << "}}";
    return s.str();
}

inline Preprocessed build(const BoxSpec& b) {
    const Scene scene = parse_scene(box_scene_json(b), "validation.json");
    PreprocessOptions options;
    options.decomposition.max_partition_side = b.max_partition_side;
    return preprocess(scene, options);
}

struct RunOutput {
    std::vector<std::vector<double>> receivers;
    double dt = 0;
    Excitation excitation;
    double seconds = 0;  // wall time of the time stepping
    std::string name;
};

inline RunOutput run(const Preprocessed& p, size_t steps,
                     Precision precision = Precision::Float64) {
    SolverOptions o;
    o.precision = precision;
    o.listener_grid = false;
    auto solver = make_solver(p, o);
    Stopwatch w;
    solver->advance(steps);
    RunOutput out;
    out.seconds = w.seconds();
    out.receivers = solver->receivers();
    out.dt = solver->dt();
    out.excitation = solver->excitation();
    out.name = solver->name();
    return out;
}

// Mean over receivers, sample by sample (the plane-wave part in a duct: averaging over a whole
// cross-section cancels every transverse mode).
inline std::vector<double> average(const std::vector<std::vector<double>>& r) {
    std::vector<double> m(r.at(0).size(), 0.0);
    for (const auto& s : r)
        for (size_t i = 0; i < m.size(); ++i)
            m[i] += s[i] / static_cast<double>(r.size());
    return m;
}

inline std::vector<double> times(size_t n, double dt, double t0) {
    std::vector<double> t(n);
    for (size_t i = 0; i < n; ++i)
        t[i] = t0 + static_cast<double>(i) * dt;
    return t;
}

// ---------------------------------------------------------------------------------------------
// Rigid box vs image sources.

struct BoxIrResult {
    double rel_l2 = 0;
    size_t partitions = 0, interfaces = 0, images = 0;
    double solver_s = 0, reference_s = 0;
};

// Source and receiver at fixed fractions of the box (away from symmetry planes).
inline BoxIrResult rigid_box_vs_images(Index3 cells, double f_max, double window,
                                       const std::string& csv) {
    BoxSpec b;
    b.cells = cells;
    b.f_max = f_max;
    auto at = [&](double fx, double fy, double fz) {
        return Index3{static_cast<int>(fx * cells[0]), static_cast<int>(fy * cells[1]),
                      static_cast<int>(fz * cells[2])};
    };
    b.source = at(0.23, 0.31, 0.27);
    b.receivers = {at(0.71, 0.62, 0.58)};
    const Preprocessed p = build(b);
    BoxIrResult res;
    res.partitions = p.decomposition.partitions.size();
    res.interfaces = p.decomposition.interfaces.size();
    EXPECT_TRUE(p.decomposition.pml.empty()) << "a rigid box must have no PML";

    // Simulate a little past the window so the band-pass sees the same tail on both sides.
    const double h = p.air.grid.h;
    SolverOptions o;
    o.precision = Precision::Float64;
    o.listener_grid = false;
    auto solver = make_solver(p, o);
    const double dt = solver->dt();
    const auto steps = static_cast<size_t>(std::ceil((window + 0.02) / dt));
    Stopwatch ws;
    solver->advance(steps);
    res.solver_s = ws.seconds();
    const std::vector<double>& sim = solver->receivers()[0];
    const Excitation g = solver->excitation();

    ImageSourceSetup is;
    is.box = {cells[0] * h, cells[1] * h, cells[2] * h};
    is.source = p.air.sources[0].cell_centre;
    is.receiver = p.air.receivers[0].cell_centre;
    is.c = kSpeed;
    is.signal = [g](double t) { return g(t); };
    is.signal_length = 2 * g.delay();
    is.dt = dt;
    is.samples = steps;
    is.t0 = 0;  // receivers()[r][k] is the field at t = k dt (sampled before step k)
    Stopwatch wr;
    const ImageSourceResult ref = image_source_ir(is);
    res.reference_s = wr.seconds();
    res.images = ref.images;

    const double fs = 1 / dt;
    const auto sim_bp = bandpass(sim, fs, 0.05 * g.f_max, 0.8 * g.f_max);
    const auto ref_bp = bandpass(ref.p, fs, 0.05 * g.f_max, 0.8 * g.f_max);
    const auto n = static_cast<size_t>(std::floor(window / dt));
    res.rel_l2 = relative_l2(std::span(sim_bp).first(n), std::span(ref_bp).first(n));
    // Where the error comes from: growth over time and per octave of the band.
    std::printf("[ measured ] relative L2 error over the first");
    for (double tw : {0.05, 0.1, 0.25})
        if (tw <= window) {
            const auto m = static_cast<size_t>(std::floor(tw / dt));
            std::printf(" %.2f s: %.4f;", tw,
                        relative_l2(std::span(sim_bp).first(m), std::span(ref_bp).first(m)));
        }
    std::printf(" per octave over the window:");
    for (double lo = 0.05 * g.f_max; lo < 0.8 * g.f_max * 0.99; lo *= 2) {
        const double hi = std::min(2 * lo, 0.8 * g.f_max);
        const auto sim_o = bandpass(sim, fs, lo, hi, 0.0);
        const auto ref_o = bandpass(ref.p, fs, lo, hi, 0.0);
        std::printf(" %.0f-%.0f Hz %.4f;", lo, hi,
                    relative_l2(std::span(sim_o).first(n), std::span(ref_o).first(n)));
    }
    std::printf("\n");
    write_validation_csv(csv, {"t_s", "ard", "image_source"},
                         {times(n, dt, dt), std::vector<double>(sim_bp.begin(), sim_bp.begin() + n),
                          std::vector<double>(ref_bp.begin(), ref_bp.begin() + n)});
    std::printf(
        "[ measured ] rigid box %dx%dx%d cells, f_max %.0f Hz, h %.4f m, dt %.3g s, %zu steps, "
        "%zu partitions, %zu interfaces, %zu images, window %.3f s: relative L2 error (band "
        "0.05-0.8 f_max) = %.4f (%.2f %%); solver %.2f s, reference %.2f s\n",
        cells[0], cells[1], cells[2], f_max, h, dt, steps, res.partitions, res.interfaces,
        res.images, window, res.rel_l2, 100 * res.rel_l2, res.solver_s, res.reference_s);
    return res;
}

// ---------------------------------------------------------------------------------------------
// Ducts: a long thin rigid box along x, w x w cells in section, the source in the section's
// middle near x = 0 and a full cross-section of receivers at x = rx, averaged into the plane wave.

struct Duct {
    int length = 512;
    int width = 2;
    double f_max = 1000;
    int source_x = 0;  // at the rigid end: its mirror image merges with it (no comb in band)
    int receiver_x = 300;
    std::string absorbing_face;  // "wall_x1" for an absorbing far end
    double alpha = 0;
    std::string absorption;  // BoxSpec::absorption
    int max_partition_side = 1024;
};

inline BoxSpec duct_spec(const Duct& d) {
    BoxSpec b;
    b.cells = {d.length, d.width, d.width};
    b.f_max = d.f_max;
    b.absorbing_face = d.absorbing_face;
    b.alpha = d.alpha;
    b.absorption = d.absorption;
    b.source = {d.source_x, d.width / 2, d.width / 2};
    for (int k = 0; k < d.width; ++k)
        for (int j = 0; j < d.width; ++j)
            b.receivers.push_back({d.receiver_x, j, k});
    b.max_partition_side = d.max_partition_side;
    return b;
}

struct DuctRun {
    std::vector<double> p;  // plane-wave pressure at the receiver section
    double dt = 0;
    double f_max = 0;
    double pulse = 0;  // s: length of the excitation kernel
    size_t partitions = 0, interfaces = 0, pml_slabs = 0;
    double seconds = 0;
};

inline DuctRun run_duct(const Duct& d, size_t steps) {
    const Preprocessed p = build(duct_spec(d));
    DuctRun r;
    r.partitions = p.decomposition.partitions.size();
    r.interfaces = p.decomposition.interfaces.size();
    r.pml_slabs = p.decomposition.pml.size();
    const RunOutput o = run(p, steps);
    r.p = average(o.receivers);
    r.dt = o.dt;
    r.f_max = o.excitation.f_max;
    r.pulse = 2 * o.excitation.delay();
    r.seconds = o.seconds;
    return r;
}

struct ReflectionResult {
    double in_band = 0;        // sqrt(reflected / incident energy), 0.05-0.8 f_max
    double worst_band_db = 0;  // worst third-octave band, dB
    std::vector<Band> bands;
    std::vector<double> band_r;  // |R| per band
    double seconds = 0;
};

// Reflection seen at the receiver section: `reflected` (the difference of the run with the
// feature and the clean reference) against `incident` (the clean reference), each inside its
// time window (samples [0, end)). Writes the per-bin |R| to `csv`.
inline ReflectionResult reflection(const std::vector<double>& incident, size_t incident_end,
                                   const std::vector<double>& reflected, size_t reflected_end,
                                   double dt, double f_max, const std::string& csv,
                                   const std::string& label) {
    const auto inc = time_window(incident, 0, incident_end);
    const auto ref = time_window(reflected, 0, reflected_end);
    const double fs = 1 / dt;
    const Spectrum si = magnitude_spectrum(inc, fs, Window::Rectangular, 4);
    const Spectrum sr = magnitude_spectrum(ref, fs, Window::Rectangular, 4);
    const double lo = 0.05 * f_max, hi = 0.8 * f_max;
    double ei = 0, er = 0;
    std::vector<double> f, r_db;
    for (size_t k = 0; k < si.magnitude.size(); ++k) {
        const double fk = si.frequency(k);
        if (fk < lo || fk > hi) continue;
        ei += si.magnitude[k] * si.magnitude[k];
        er += sr.magnitude[k] * sr.magnitude[k];
        f.push_back(fk);
        r_db.push_back(
            20 * std::log10(std::max(sr.magnitude[k], 1e-300) / std::max(si.magnitude[k], 1e-300)));
    }
    ReflectionResult res;
    res.in_band = std::sqrt(er / ei);
    res.bands = third_octave_bands(lo, hi);
    const auto bi = band_energies(si, res.bands);
    const auto br = band_energies(sr, res.bands);
    res.worst_band_db = -300;
    std::vector<double> centres;
    for (size_t b = 0; b < res.bands.size(); ++b) {
        res.band_r.push_back(std::sqrt(br[b] / bi[b]));
        res.worst_band_db = std::max(res.worst_band_db, to_db(br[b] / bi[b]));
        centres.push_back(res.bands[b].centre);
    }
    write_validation_csv(csv, {"f_hz", "r_db"}, {f, r_db});
    std::vector<double> band_db;
    std::printf("[ measured ] %s: in-band reflection |R| = %.5f (%.1f dB); third-octave bands:",
                label.c_str(), res.in_band, 20 * std::log10(std::max(res.in_band, 1e-300)));
    for (size_t b = 0; b < res.bands.size(); ++b) {
        std::printf(" %.0f Hz %.4f%s", res.bands[b].centre, res.band_r[b],
                    b + 1 < res.bands.size() ? "," : "\n");
        band_db.push_back(20 * std::log10(std::max(res.band_r[b], 1e-300)));
    }
    write_validation_csv("bands_" + csv, {"centre_hz", "r_db"}, {centres, band_db});
    return res;
}

// Samples before a wave leaving the source at x_s and travelling `cells` cells reaches anything.
inline size_t arrival_sample(double cells, double h, double dt) {
    return static_cast<size_t>(std::floor(cells * h / kSpeed / dt));
}

// The clean reference: the same duct, rigid and long enough (twice as long, one partition) that
// nothing comes back within the windows.
inline DuctRun reference_duct(Duct d, size_t steps) {
    d.length *= 2;
    d.absorbing_face.clear();
    d.alpha = 0;
    d.absorption.clear();
    d.max_partition_side = 1024;
    return run_duct(d, steps);
}

// Plane-wave reflection of the far end of a duct whose wall_x1 absorbs `alpha` (or, with
// interface_only, of the interface between two partitions of a rigid duct of the same length).
inline ReflectionResult duct_reflection(Duct d, bool interface_only, const std::string& csv,
                                        const std::string& label) {
    Stopwatch w;
    const double h = cell_size(d.f_max);
    // Length in cells of the excitation pulse plus a margin (a 1-step probe run gives it).
    const DuctRun probe = run_duct(d, 1);
    const double pulse_cells = probe.pulse * kSpeed / h + 10;
    // The reflection from the feature at x_f reaches the receiver after this many cells of travel;
    // its re-reflection from the source end 2 x_r cells later; the reference's far end much later.
    const double feature = interface_only ? d.length / 2.0 : d.length;
    const double reflected_at = (feature - d.source_x) + (feature - d.receiver_x);
    const double rereflected_at = reflected_at + 2.0 * d.receiver_x - 10;
    EXPECT_GT(rereflected_at, reflected_at + pulse_cells) << "receiver too close to the source end";
    DuctRun ref_run;
    DuctRun feature_run;
    size_t steps = 0;
    if (interface_only) {
        // Same duct, one partition (reference) or split in two at the middle (feature).
        Duct one = d, two = d;
        one.max_partition_side = d.length;
        two.max_partition_side = d.length / 2;
        steps = arrival_sample(rereflected_at, h, probe.dt) + 1;
        ref_run = run_duct(one, steps);
        feature_run = run_duct(two, steps);
        EXPECT_EQ(ref_run.partitions, 1u);
        EXPECT_EQ(feature_run.partitions, 2u);
        EXPECT_GE(feature_run.interfaces, 1u);
    } else {
        steps = arrival_sample(rereflected_at, h, probe.dt) + 1;
        feature_run = run_duct(d, steps);
        ref_run = reference_duct(d, steps);
        EXPECT_EQ(feature_run.partitions, 1u);
        EXPECT_EQ(ref_run.partitions, 1u);
        EXPECT_GE(feature_run.pml_slabs, 1u) << "an absorbing wall needs a PML slab";
    }
    const double dt = ref_run.dt;
    std::vector<double> diff(steps);
    for (size_t i = 0; i < steps; ++i)
        diff[i] = feature_run.p[i] - ref_run.p[i];
    // Incident: the reference until the feature's reflection could arrive.
    const size_t incident_end = arrival_sample(reflected_at, h, dt);
    EXPECT_GT(static_cast<double>(incident_end) * dt * kSpeed / h,
              d.receiver_x + d.source_x + pulse_cells)
        << "incident pulse and reflection overlap";
    ReflectionResult r =
        reflection(ref_run.p, incident_end, diff, steps, dt, ref_run.f_max, csv, label);
    r.seconds = w.seconds();
    std::printf(
        "[ measured ] %s: duct %dx%dx%d cells, f_max %.0f Hz, %zu steps, %zu partitions; %.2f "
        "s\n",
        label.c_str(), d.length, d.width, d.width, d.f_max, steps, feature_run.partitions,
        r.seconds);
    return r;
}

// ---------------------------------------------------------------------------------------------
// Decay of an axial mode between a rigid wall_x0 and an absorbing wall_x1: a standing wave that
// keeps |R|^2 of its energy at every reflection from wall_x1, i.e. 10 log10 |R|^2 dB per round
// trip 2 L / c, with R the normal-incidence reflection of the wall fitted to the random-incidence
// alpha (normal_incidence_reflection). A wall that returns its reflection late (a layer tuned to
// the reflection instead of a reflecting face, docs/ard.md) stretches the round trip and slows the
// decay.

struct ModeDecayResult {
    double measured_db_per_s = 0, expected_db_per_s = 0;
    size_t partitions = 0;
};

// The normal-incidence reflection of the wall every solver builds for a material of
// random-incidence absorption alpha: (1 - beta) / (1 + beta), beta = real_admittance_for(alpha)
// (wall_admittance.h). About sqrt(1 - alpha / 2) for small alpha: half the normal-incidence loss
// of the walls before the random-incidence fit.
inline double normal_incidence_reflection(double alpha) {
    const double beta = real_admittance_for(alpha);
    return (1 - beta) / (1 + beta);
}

// The normal-incidence |R| a fitted wall gives over a band, as a reflection measurement of a flat
// spectrum sees it: the root mean square over the band's frequencies.
inline double band_reflection(const WallAdmittance& y, double lo_hz, double hi_hz) {
    constexpr int kPoints = 64;
    double sum = 0;
    for (int i = 0; i < kPoints; ++i) {
        const double f = lo_hz + (hi_hz - lo_hz) * (i + 0.5) / kPoints;
        sum += std::norm(plane_wave_reflection(y.at(2 * 3.14159265358979323846 * f), 1.0));
    }
    return std::sqrt(sum / kPoints);
}

// The wall of the per-band reflection tests: absorption rising eightfold over the band, a
// carpet-like material, as scene JSON and as the Material it parses to.
inline constexpr const char* kPerBandWallJson =
    R"({"125": 0.05, "250": 0.12, "500": 0.3, "1000": 0.6})";
inline Material per_band_wall() {
    Material m;
    m.name = "absorber";
    m.set_bands({{125, 0.05}, {250, 0.12}, {500, 0.3}, {1000, 0.6}});
    return m;
}

// The largest difference over the measured third-octave bands between |R| and the fitted wall's
// band reflection; prints both per band.
inline double worst_band_reflection_error(const char* solver, const WallFit& fit,
                                          const ReflectionResult& r) {
    double worst = 0;
    std::printf("[ measured ] %s per-band wall (%zu branches), |R| measured / fitted:", solver,
                fit.admittance.branches.size());
    for (size_t b = 0; b < r.bands.size(); ++b) {
        const double want = band_reflection(fit.admittance, r.bands[b].lo, r.bands[b].hi);
        std::printf(" %.0f Hz %.4f/%.4f;", r.bands[b].centre, r.band_r[b], want);
        worst = std::max(worst, std::abs(r.band_r[b] - want));
    }
    std::printf(" worst %.4f\n", worst);
    return worst;
}

// Starts from the mode cos(pi m (i + 1/2) / nx) at rest, records it at the rigid end and fits a
// line to the peak level of each period after the first, over its first 30 dB.
inline ModeDecayResult axial_mode_decay(Index3 cells, int m, double alpha, int periods) {
    BoxSpec b;
    b.cells = cells;
    b.absorbing_face = "wall_x1";
    b.alpha = alpha;
    b.source = {0, 0, 0};
    b.receivers = {{0, 0, 0}};
    const Preprocessed p = build(b);
    SolverOptions o;
    o.precision = Precision::Float64;
    o.listener_grid = false;
    o.inject_source = false;
    auto solver = make_solver(p, o);
    const Index3 origin = p.air.sources.at(0).cell;  // the box's first cell
    const double pi = 3.14159265358979323846;
    for (int k = 0; k < cells[2]; ++k)
        for (int j = 0; j < cells[1]; ++j)
            for (int i = 0; i < cells[0]; ++i)
                solver->set_pressure({origin[0] + i, origin[1] + j, origin[2] + k},
                                     std::cos(pi * m * (i + 0.5) / cells[0]));
    const double length = cells[0] * cell_size(b.f_max);
    const double period = 2 * length / (m * kSpeed);
    const auto per = static_cast<size_t>(std::round(period / solver->dt()));
    solver->advance(per * static_cast<size_t>(periods));
    const std::vector<double>& x = solver->receivers().at(0);
    std::vector<double> t, level;
    for (int w = 1; w < periods; ++w) {
        double peak = 0;
        for (size_t i = static_cast<size_t>(w) * per; i < static_cast<size_t>(w + 1) * per; ++i)
            peak = std::max(peak, std::fabs(x[i]));
        // The first 30 dB: further down, what the mode shape leaves in slower modes shows.
        if (!level.empty() && 20 * std::log10(peak) < level.front() - 30) break;
        t.push_back(w * period);
        level.push_back(20 * std::log10(peak));
    }
    ModeDecayResult r;
    r.measured_db_per_s = least_squares_slope(t, level);
    const double reflection = normal_incidence_reflection(alpha);
    r.expected_db_per_s = 20 * std::log10(reflection) * kSpeed / (2 * length);
    r.partitions = p.decomposition.partitions.size();
    std::printf(
        "[ measured ] axial mode %d of a %dx%dx%d box (%zu partitions), wall_x1 alpha %.2f: "
        "decay %.1f dB/s, round-trip loss %.1f dB/s, ratio %.3f\n",
        m, cells[0], cells[1], cells[2], r.partitions, alpha, r.measured_db_per_s,
        r.expected_db_per_s, r.measured_db_per_s / r.expected_db_per_s);
    return r;
}

// ---------------------------------------------------------------------------------------------
// Room modes.

struct ModeCheck {
    double f_analytic = 0, f_measured = 0, rel_error = 0;
};

struct ModesResult {
    std::vector<ModeCheck> checked;
    double max_rel_error = 0;
    double max_checked_hz = 0;
    double seconds = 0;
    size_t partitions = 0;
};

// Analytic modes (c / 2) sqrt((l/Lx)^2 + (m/Ly)^2 + (n/Lz)^2) below f_max of a box (0 sides
// allowed to skip an axis), sorted.
inline std::vector<double> box_modes(Vec3 L, double f_max, bool axial_x_only) {
    std::vector<double> f;
    const int lmax = static_cast<int>(2 * f_max * L.x / kSpeed) + 1;
    const int mmax = axial_x_only ? 0 : static_cast<int>(2 * f_max * L.y / kSpeed) + 1;
    const int nmax = axial_x_only ? 0 : static_cast<int>(2 * f_max * L.z / kSpeed) + 1;
    for (int l = 0; l <= lmax; ++l)
        for (int m = 0; m <= mmax; ++m)
            for (int n = 0; n <= nmax; ++n) {
                const double v = 0.5 * kSpeed *
                                 std::sqrt((l / L.x) * (l / L.x) + (m / L.y) * (m / L.y) +
                                           (n / L.z) * (n / L.z));
                if (v > 0 && v < f_max) f.push_back(v);
            }
    std::sort(f.begin(), f.end());
    return f;
}

// Source in one corner cell, receivers in the opposite corner (every mode excited); for a duct
// (axial_x_only) the receivers cover the far end's whole cross-section so only axial modes remain.
// Checks every analytic mode in (0.06, 0.95) f_max whose neighbours are far enough away that the
// peak search window [f (1 - 0.75 %), f (1 + 0.75 %)] (at least 1.5 bins) holds no other peak.
inline ModesResult room_modes(Index3 cells, double f_max, double duration, bool axial_x_only,
                              const std::string& csv) {
    Stopwatch w;
    BoxSpec b;
    b.cells = cells;
    b.f_max = f_max;
    b.source = {0, 0, 0};
    if (axial_x_only) {
        b.source = {0, cells[1] / 2, cells[2] / 2};
        for (int k = 0; k < cells[2]; ++k)
            for (int j = 0; j < cells[1]; ++j)
                b.receivers.push_back({cells[0] - 1, j, k});
    } else {
        b.receivers = {{cells[0] - 1, cells[1] - 1, cells[2] - 1}};
    }
    const Preprocessed p = build(b);
    ModesResult res;
    res.partitions = p.decomposition.partitions.size();
    SolverOptions o;
    o.precision = Precision::Float64;
    o.listener_grid = false;
    auto solver = make_solver(p, o);
    const double dt = solver->dt();
    const auto steps = static_cast<size_t>(std::ceil(duration / dt));
    solver->advance(steps);
    const std::vector<double> ir = average(solver->receivers());
    const double T = static_cast<double>(steps) * dt;
    const Spectrum s = magnitude_spectrum(ir, 1 / dt, Window::Hann, 8);

    const double h = p.air.grid.h;
    const Vec3 L{cells[0] * h, cells[1] * h, cells[2] * h};
    const auto modes = box_modes(L, f_max, axial_x_only);
    std::vector<double> distinct;
    for (double f : modes)
        if (distinct.empty() || f > distinct.back() * (1 + 1e-4)) distinct.push_back(f);
    for (size_t i = 0; i < distinct.size(); ++i) {
        const double f = distinct[i];
        if (f < 0.06 * f_max || f > 0.95 * f_max) continue;
        const double half = std::max(0.0075 * f, 1.5 / T);
        const double clear = half + 3.0 / T;
        const bool left_ok = i == 0 || f - distinct[i - 1] > clear;
        const bool right_ok = i + 1 == distinct.size() || distinct[i + 1] - f > clear;
        if (!left_ok || !right_ok) continue;
        ModeCheck m;
        m.f_analytic = f;
        m.f_measured = peak_frequency(s, f - half, f + half);
        m.rel_error = std::abs(m.f_measured - f) / f;
        if (!std::isfinite(m.rel_error)) m.rel_error = 1;
        res.checked.push_back(m);
        res.max_rel_error = std::max(res.max_rel_error, m.rel_error);
        res.max_checked_hz = std::max(res.max_checked_hz, f);
    }
    res.seconds = w.seconds();
    std::printf(
        "[ measured ] room modes, %s %dx%dx%d cells, f_max %.0f Hz, %zu partitions, %.2f s of "
        "signal (%zu steps): %zu isolated modes checked up to %.1f Hz (%.2f f_max), largest "
        "relative error %.4f %%; %.2f s\n",
        axial_x_only ? "duct (axial modes)" : "box", cells[0], cells[1], cells[2], f_max,
        res.partitions, T, steps, res.checked.size(), res.max_checked_hz,
        res.max_checked_hz / f_max, 100 * res.max_rel_error, res.seconds);
    std::vector<double> fa, fm, err;
    for (const auto& m : res.checked) {
        fa.push_back(m.f_analytic);
        fm.push_back(m.f_measured);
        err.push_back(m.rel_error);
    }
    write_validation_csv(csv + "_modes.csv", {"f_analytic_hz", "f_measured_hz", "rel_error"},
                         {fa, fm, err});
    std::vector<double> sf, sdb;
    double peak = 0;
    for (double v : s.magnitude)
        peak = std::max(peak, v);
    for (size_t k = 0; k < s.magnitude.size() && s.frequency(k) <= f_max; ++k) {
        sf.push_back(s.frequency(k));
        sdb.push_back(20 * std::log10(std::max(s.magnitude[k] / peak, 1e-12)));
    }
    write_validation_csv(csv + "_spectrum.csv", {"f_hz", "level_db"}, {sf, sdb});
    write_validation_csv(csv + "_analytic.csv", {"f_hz"}, {distinct});
    return res;
}

// ---------------------------------------------------------------------------------------------
// Long-run energy: a random initial field (both time levels, so at rest), no source; sum p^2
// sampled every `every` steps. In a rigid room it must hold, with absorbing walls it must fall.

struct EnergyResult {
    double initial = 0, max_ratio = 0, last_over_first = 0;
    size_t partitions = 0;
    double seconds = 0;
};

inline EnergyResult energy_run(const Preprocessed& p, const std::string& what, size_t steps,
                               size_t every, const std::string& csv) {
    SolverOptions o;
    o.precision = Precision::Float64;
    o.listener_grid = false;
    o.inject_source = false;
    auto solver = make_solver(p, o);
    std::mt19937 rng(12345);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Grid& g = p.air.grid;
    for (size_t i = 0; i < g.count(); ++i)
        if (p.air.air[i]) solver->set_pressure(g.coords(i), u(rng));
    EnergyResult res;
    res.partitions = p.decomposition.partitions.size();
    res.initial = solver->field_energy();
    std::vector<double> t{0}, e{res.initial};
    Stopwatch w;
    for (size_t done = 0; done < steps; done += every) {
        solver->advance(every);
        t.push_back(static_cast<double>(done + every));
        e.push_back(solver->field_energy());
    }
    res.seconds = w.seconds();
    const size_t tenth = std::max<size_t>(1, e.size() / 10);
    double first = 0, last = 0;
    for (size_t i = 1; i <= tenth; ++i)
        first += e[i];
    for (size_t i = e.size() - tenth; i < e.size(); ++i)
        last += e[i];
    res.last_over_first = last / first;
    for (double v : e)
        res.max_ratio = std::max(res.max_ratio, v / res.initial);
    std::printf(
        "[ measured ] energy, %s, %zu partitions, %zu PML cells, %zu steps, no source, random "
        "initial field: max sum p^2 / initial = %.6f, mean of the last tenth / mean of the first "
        "tenth = %.6f; %.2f s (%.3g cell-steps/s)\n",
        what.c_str(), res.partitions, p.decomposition.pml_cells(), steps, res.max_ratio,
        res.last_over_first, res.seconds,
        static_cast<double>(p.air.air_cells) * static_cast<double>(steps) / res.seconds);
    std::vector<double> ratio;
    for (double v : e)
        ratio.push_back(v / res.initial);
    write_validation_csv(csv, {"step", "energy_ratio"}, {t, ratio});
    return res;
}

// The rigid box of several partitions.
inline EnergyResult energy_run(Index3 cells, size_t steps, size_t every, const std::string& csv) {
    BoxSpec b;
    b.cells = cells;
    b.f_max = 500;
    b.source = {1, 1, 1};
    const std::string what = "rigid box " + std::to_string(cells[0]) + "x" +
                             std::to_string(cells[1]) + "x" + std::to_string(cells[2]) + " cells";
    return energy_run(build(b), what, steps, every, csv);
}

// A bundled scene with its own materials at `f_max`: furniture gives thin partitions beside
// absorbing faces, where a PML line reads air beyond its partition.
inline EnergyResult energy_run(const std::string& scene_file, double f_max, size_t steps,
                               size_t every, const std::string& csv) {
    Scene scene = load_scene(scene_file);
    scene.simulation.max_frequency = f_max;
    scene.simulation.band = "wave";
    scene.listener_grid_every = 0;
    const std::string what = scene.name + " at " + std::to_string(static_cast<int>(f_max)) + " Hz";
    return energy_run(preprocess(scene), what, steps, every, csv);
}

}  // namespace ardent::test::validation
