// ARD against FDTD at equal accuracy (issue 21, item 5): rigid boxes drawn from seeds (the rooms of
// the exact-IR tests, tests/support/rigid_box_case.h, optionally K times larger in every side) run
// through `ardent simulate` at several points per wavelength, ARD and FDTD alike; each output WAV
// is compared with the exact image-source IR of the room its grid represents (relative L2 error,
// band 0.05-0.8 f_max, over the whole duration), and its cost is the solver's time stepping
// (result.json: solve minus solver_setup). For each box the cost of each solver at a given error is
// interpolated log-log between the two grids that bracket it; the ratio FDTD / ARD at 10 % and 5 %
// is the figure of merit.
// Usage: bench_equal_accuracy [--ardent PATH] [--device cpu|cuda] [--threads N] [--seeds 1,2,3]
//   [--scale K] [--ard-ppw 2,2.2,...] [--fdtd-ppw 8,10,...] [--duration S] [--csv FILE]
//   [--stop-below E] [--max-cells N] [--work DIR]
// A solver's finer grids are skipped once its error is below E (default 0.04: both targets met)
// and grids of more than N cells are skipped (default 2e9). Where FDTD's finest grid misses a
// target, its cost there is also extrapolated from its two finest grids (log-log; marked so).
// Prints one JSON object per run and a summary per box; --csv writes the runs for the figure
// (scripts/plot_equal_accuracy.py).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "rigid_box_case.h"
#include "signal_tools.h"

namespace {

namespace fs = std::filesystem;
using ardent::test::RigidBox;

struct Options {
    std::string ardent = ARDENT_CLI;
    std::string device = "cpu";
    int threads = 0;
    std::vector<double> seeds{1, 2, 3};
    int scale = 1;
    std::vector<double> ard_ppw{2, 2.2, 2.6, 3, 3.5, 4, 5};
    std::vector<double> fdtd_ppw{8, 10, 12, 16, 24, 32, 48, 64};
    double duration = 0.5;
    double stop_below = 0.04;  // a solver's finer grids are skipped once its error is below this
    double max_cells = 2e9;    // grids larger than this (estimated from the box) are skipped
    std::string csv, work;
};

struct Run {
    std::string solver;
    double ppw = 0, error = -1, stepping_s = 0, total_s = 0;
    long cells = 0, partitions = 0, steps = 0;
};

std::vector<double> parse_list(const std::string& s) {
    std::vector<double> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        out.push_back(std::stod(item));
    return out;
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--ardent")
            o.ardent = v;
        else if (k == "--device")
            o.device = v;
        else if (k == "--threads")
            o.threads = std::stoi(v);
        else if (k == "--seeds")
            o.seeds = parse_list(v);
        else if (k == "--scale")
            o.scale = std::stoi(v);
        else if (k == "--ard-ppw")
            o.ard_ppw = parse_list(v);
        else if (k == "--fdtd-ppw")
            o.fdtd_ppw = parse_list(v);
        else if (k == "--duration")
            o.duration = std::stod(v);
        else if (k == "--stop-below")
            o.stop_below = std::stod(v);
        else if (k == "--max-cells")
            o.max_cells = std::stod(v);
        else if (k == "--csv")
            o.csv = v;
        else if (k == "--work")
            o.work = v;
        else {
            std::fprintf(stderr, "bench_equal_accuracy: unknown option %s\n", k.c_str());
            std::exit(2);
        }
    }
    return o;
}

// The seed's room, `scale` times larger in cells (the same f_max: a larger room, not a finer grid).
RigidBox scaled_box(std::uint32_t seed, int scale) {
    RigidBox b = ardent::test::draw_rigid_box(seed);
    for (int a = 0; a < 3; ++a) {
        b.cells[a] *= scale;
        b.source[a] = b.source[a] * scale + scale / 2;
        b.receiver[a] = b.receiver[a] * scale + scale / 2;
    }
    return b;
}

double estimated_cells(RigidBox b, const std::string& solver, double ppw) {
    b.solver = solver;
    b.points_per_wavelength = ppw;
    ardent::SimulationSettings s;
    s.solver = solver;
    s.max_frequency = b.f_max;
    s.points_per_wavelength = ppw;
    const auto sides = ardent::test::rigid_box_sides(b);
    return sides[0] * sides[1] * sides[2] / std::pow(s.cell_size(), 3);
}

double stage_seconds(const nlohmann::json& timings, const char* key) {
    const auto& v = timings.at(key);
    if (v.is_number()) return v.get<double>();
    double sum = 0;  // per source
    for (const auto& [name, s] : v.items())
        sum += s.get<double>();
    return sum;
}

std::optional<Run> run_box(const Options& o, RigidBox b, const std::string& solver, double ppw,
                           const fs::path& work) {
    b.solver = solver;
    b.device = o.device;
    b.points_per_wavelength = ppw;
    b.duration = o.duration;
    std::ostringstream tag;
    tag << "seed" << b.seed << "-" << solver << "-" << ppw;
    const fs::path scene = work / (tag.str() + ".json"), out = work / tag.str();
    std::ofstream(scene) << ardent::test::rigid_box_scene(b);
    fs::remove_all(out);
    const std::string log = (work / (tag.str() + ".log")).string();
    const std::string cmd = "'" + o.ardent + "' simulate '" + scene.string() + "' -o '" +
                            out.string() + "' --quiet --threads " + std::to_string(o.threads) +
                            " > '" + log + "' 2>&1";
    if (std::system(cmd.c_str()) != 0) {
        std::ifstream in(log);
        std::stringstream text;
        text << in.rdbuf();
        std::fprintf(stderr, "%s: ardent simulate failed:\n%s\n", tag.str().c_str(),
                     text.str().c_str());
        return std::nullopt;
    }
    const auto result = nlohmann::json::parse(std::ifstream(out / "result.json"));
    const ardent::audio::Audio wav = ardent::audio::read_audio(out / "ir" / "S_R.wav");
    const double fs_out = wav.sample_rate;
    const std::vector<double> sim(wav.samples.begin(), wav.samples.end());
    const auto ref = ardent::test::rigid_box_reference(b, result, fs_out, sim.size());
    const auto sim_bp = ardent::test::bandpass(sim, fs_out, 0.05 * b.f_max, 0.8 * b.f_max);
    const auto ref_bp = ardent::test::bandpass(ref, fs_out, 0.05 * b.f_max, 0.8 * b.f_max);
    Run r;
    r.solver = solver;
    r.ppw = ppw;
    r.error = ardent::test::relative_l2(sim_bp, ref_bp);
    const auto& t = result.at("timings_s");
    r.stepping_s = stage_seconds(t, "solve") - stage_seconds(t, "solver_setup");
    r.total_s = t.at("total").get<double>();
    const auto& st = result.at("statistics");
    r.cells = st.value("air_cells", 0L);
    r.partitions = st.value("partitions", 0L);
    r.steps = std::lround(o.duration / result.at("solver").at("dt").get<double>());
    fs::remove_all(out);
    return r;
}

// The cost at `target` error, interpolated in log-log between the coarsest grid that meets it and
// the one before; nullopt when no grid meets it. `bound` is set when the coarsest grid already
// does (the cost is then at most that grid's).
std::optional<double> cost_at(const std::vector<Run>& runs, double target, bool& bound) {
    bound = false;
    for (size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].error > target) continue;
        if (i == 0) {
            bound = true;
            return runs[0].stepping_s;
        }
        const Run &a = runs[i - 1], &b = runs[i];
        const double u =
            (std::log(target) - std::log(a.error)) / (std::log(b.error) - std::log(a.error));
        return std::exp(std::log(a.stepping_s) +
                        u * (std::log(b.stepping_s) - std::log(a.stepping_s)));
    }
    return std::nullopt;
}

nlohmann::json summary(const RigidBox& b, const std::vector<Run>& ard,
                       const std::vector<Run>& fdtd) {
    nlohmann::json j = {{"seed", b.seed}, {"f_max", b.f_max}};
    for (double target : {0.10, 0.05}) {
        bool ard_bound = false, fdtd_bound = false;
        const auto a = cost_at(ard, target, ard_bound), f = cost_at(fdtd, target, fdtd_bound);
        nlohmann::json t;
        t["ard_s"] = a ? nlohmann::json(*a) : nlohmann::json(nullptr);
        t["fdtd_s"] = f ? nlohmann::json(*f) : nlohmann::json(nullptr);
        if (a && f) t["fdtd_over_ard"] = *f / *a;
        // FDTD never that close: its finest grid's cost is a lower bound of the ratio, and the
        // line through its two finest grids (log error against log cost) an estimate.
        if (a && !f && !fdtd.empty()) {
            t["fdtd_over_ard_at_least"] = fdtd.back().stepping_s / *a;
            if (fdtd.size() >= 2) {
                const Run &p = fdtd[fdtd.size() - 2], &q = fdtd.back();
                const double slope = (std::log(q.error) - std::log(p.error)) /
                                     (std::log(q.stepping_s) - std::log(p.stepping_s));
                if (slope < 0) {
                    const double cost =
                        q.stepping_s * std::exp((std::log(target) - std::log(q.error)) / slope);
                    t["fdtd_extrapolated_s"] = cost;
                    t["fdtd_over_ard_extrapolated"] = cost / *a;
                }
            }
        }
        if (ard_bound) t["ard_at_most"] = true;
        if (fdtd_bound) t["fdtd_at_most"] = true;
        char key[16];
        std::snprintf(key, sizeof key, "at_%.0f_percent", 100 * target);
        j[key] = t;
    }
    return j;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    fs::path work = o.work;
    if (work.empty()) {
        std::string templ = (fs::temp_directory_path() / "ardent-equal-accuracy-XXXXXX").string();
        if (!mkdtemp(templ.data())) return 1;
        work = templ;
    }
    fs::create_directories(work);
    std::ofstream csv;
    if (!o.csv.empty()) {
        csv.open(o.csv);
        csv << "seed,f_max,solver,points_per_wavelength,air_cells,partitions,steps,stepping_s,"
               "total_s,relative_l2\n";
    }
    nlohmann::json summaries = nlohmann::json::array();
    for (double seed : o.seeds) {
        const RigidBox b = scaled_box(static_cast<std::uint32_t>(seed), o.scale);
        std::printf("# %s, scale %d, device %s\n", ardent::test::describe(b).c_str(), o.scale,
                    o.device.c_str());
        std::vector<Run> ard, fdtd;
        for (const auto& [solver, list, runs] :
             {std::tuple{"ard", &o.ard_ppw, &ard}, std::tuple{"fdtd", &o.fdtd_ppw, &fdtd}})
            for (double ppw : *list) {
                if (!runs->empty() && runs->back().error < o.stop_below) break;
                if (estimated_cells(b, solver, ppw) > o.max_cells) {
                    std::printf("# %s at %g points per wavelength skipped: about %.3g cells\n",
                                solver, ppw, estimated_cells(b, solver, ppw));
                    continue;
                }
                const auto r = run_box(o, b, solver, ppw, work);
                if (!r) continue;
                runs->push_back(*r);
                const nlohmann::json line = {{"seed", b.seed},
                                             {"solver", r->solver},
                                             {"ppw", r->ppw},
                                             {"air_cells", r->cells},
                                             {"partitions", r->partitions},
                                             {"steps", r->steps},
                                             {"stepping_s", r->stepping_s},
                                             {"total_s", r->total_s},
                                             {"relative_l2", r->error}};
                std::printf("%s\n", line.dump().c_str());
                std::fflush(stdout);
                if (csv.is_open())
                    csv << b.seed << "," << b.f_max << "," << r->solver << "," << r->ppw << ","
                        << r->cells << "," << r->partitions << "," << r->steps << ","
                        << r->stepping_s << "," << r->total_s << "," << r->error << std::endl;
            }
        summaries.push_back(summary(b, ard, fdtd));
        std::printf("%s\n", summaries.back().dump().c_str());
        std::fflush(stdout);
    }
    std::printf("%s\n", nlohmann::json{{"summary", summaries}}.dump(1).c_str());
    if (o.work.empty()) fs::remove_all(work);
    return 0;
}
