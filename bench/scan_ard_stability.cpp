// ARD's time-step stability, measured: for each Courant number c*dt/h, a scene starts from a random
// field (every mode excited, no source) and runs N steps in float64. An unstable eigenmode grows
// geometrically and overtakes everything else, so the per-step growth of sum(q^2) over the last
// half of the run estimates the largest amplification factor. Rigid scenes must hold their energy,
// absorbing ones must lose it. Used to choose kArdCourant (docs/ard.md, "Time step").
// Usage: scan_ard_stability [--steps N] [--courant a,b,c,...] [SCENE.json@HZ ...]
//   Without scenes: the stress set below (thin partitions, every wall kind, the bundled rooms).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/solver.h"

namespace {

struct Case {
    std::string name;
    ardent::Scene scene;
};

// A w x d x h-cell box at f_max, cells of ARD's size, one material on every face (or `face` only).
ardent::Scene box(const std::string& name, int nx, int ny, int nz, double f_max, double alpha,
                  const std::string& face) {
    const double h = 343.0 / (2.6 * f_max);
    std::ostringstream s;
    s.precision(17);
    s << R"({"format": "ardent-scene/1", "name": ")" << name << R"(", "geometry": {"box": [)"
      << nx * h << ", " << ny * h << ", " << nz * h << "]},"
      << R"( "materials": {"rigid": {"absorption": 0.0}, "absorber": {"absorption": )" << alpha
      << R"(}}, "surfaces": {)";
    if (!face.empty()) s << "\"" << face << R"(": "absorber", )";
    s << R"("*": ")" << (face.empty() && alpha > 0 ? "absorber" : "rigid") << R"("},)"
      << R"( "sources": [{"name": "S", "position": [)" << 0.5 * h << ", " << 0.5 * h << ", "
      << 0.5 * h << R"(]}], "receivers": [],)"
      << R"( "simulation": {"max_frequency": )" << f_max << R"(, "duration": 0.1}})";
    return ardent::parse_scene(s.str(), name + ".json");
}

std::vector<double> parse_list(const char* s) {
    std::vector<double> v;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        v.push_back(std::atof(item.c_str()));
    return v;
}

// The five cells with the largest |q| and, for each, its partition and the PML slabs on it.
void print_peaks(const ardent::Preprocessed& p, const ardent::Solver& solver) {
    const ardent::Grid& g = p.air.grid;
    std::vector<std::pair<double, ardent::Index3>> cells;
    std::vector<float> plane;
    for (int z = 0; z < g.dims[2]; ++z) {
        solver.pressure_plane(2, z, plane);
        for (int y = 0; y < g.dims[1]; ++y)
            for (int x = 0; x < g.dims[0]; ++x) {
                const float v = plane[static_cast<size_t>(y) * static_cast<size_t>(g.dims[0]) +
                                      static_cast<size_t>(x)];
                if (std::isfinite(v)) cells.push_back({std::fabs(v), {x, y, z}});
            }
    }
    std::partial_sort(cells.begin(), cells.begin() + std::min<size_t>(5, cells.size()), cells.end(),
                      [](auto& a, auto& b) { return a.first > b.first; });
    const auto& d = p.decomposition;
    for (size_t i = 0; i < std::min<size_t>(5, cells.size()); ++i) {
        const ardent::Index3 c = cells[i].second;
        std::printf("    |q| %.4g at (%d %d %d)", cells[i].first, c[0], c[1], c[2]);
        for (size_t k = 0; k < d.partitions.size(); ++k) {
            const auto& P = d.partitions[k];
            bool in = true;
            for (int a = 0; a < 3; ++a)
                in = in && c[a] >= P.origin[a] && c[a] < P.origin[a] + P.size[a];
            if (!in) continue;
            std::printf(" partition %zu origin (%d %d %d) size %dx%dx%d; slabs:", k, P.origin[0],
                        P.origin[1], P.origin[2], P.size[0], P.size[1], P.size[2]);
            for (const auto& s : d.pml)
                if (s.partition == static_cast<int32_t>(k))
                    std::printf(" [axis %d side %+d lo (%d %d %d) hi (%d %d %d) mat %d]", s.axis,
                                s.side, s.lo[0], s.lo[1], s.lo[2], s.hi[0], s.hi[1], s.hi[2],
                                s.material);
        }
        std::printf("\n");
    }
}

}  // namespace

int main(int argc, char** argv) {
    size_t steps = 20000;
    std::vector<double> courants{0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55};
    std::vector<Case> cases;
    double set_alpha = -1;  // --alpha A: every material of the given scenes absorbs A
    bool where = false;     // --where: print the cells holding the largest field at the end
    std::vector<double> keep_slabs;  // --keep-slabs i,j,...: only these PML slabs absorb
    bool use_keep = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--keep-slabs") && i + 1 < argc) {
            keep_slabs = parse_list(argv[++i]);
            use_keep = true;
            continue;
        }
        if (!std::strcmp(argv[i], "--where")) {
            where = true;
            continue;
        }
        if (!std::strcmp(argv[i], "--alpha") && i + 1 < argc) {
            set_alpha = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) {
            steps = static_cast<size_t>(std::atol(argv[++i]));
        } else if (!std::strcmp(argv[i], "--courant") && i + 1 < argc) {
            courants = parse_list(argv[++i]);
        } else {
            const std::string arg = argv[i];
            int nx = 0, ny = 0, nz = 0;
            if (std::sscanf(arg.c_str(), "box:%dx%dx%d", &nx, &ny, &nz) == 3) {
                // box:NXxNYxNZ, cells at 500 Hz, every face absorbing --alpha (default 0.5)
                cases.push_back(
                    {arg, box("b", nx, ny, nz, 500, set_alpha >= 0 ? set_alpha : 0.5, "")});
                continue;
            }
            const size_t at = arg.rfind('@');
            ardent::Scene sc = ardent::load_scene(arg.substr(0, at));
            if (at != std::string::npos)
                sc.simulation.max_frequency = std::atof(arg.c_str() + at + 1);
            if (set_alpha >= 0)
                for (auto& m : sc.materials)
                    m.set_uniform(set_alpha);
            cases.push_back({arg, sc});
        }
    }
    if (cases.empty()) {
        // Sides that are not powers of two give 1- and 2-cell partitions, wall lines and corners
        // where lines of all three axes meet; the absorbing faces add PML lines of every strength.
        cases.push_back({"rigid box 20x14x10", box("b1", 20, 14, 10, 500, 0, "")});
        cases.push_back({"rigid box 23x19x13", box("b2", 23, 19, 13, 500, 0, "")});
        cases.push_back(
            {"box 23x19x13, floor alpha 0.5", box("b3", 23, 19, 13, 500, 0.5, "floor")});
        cases.push_back({"box 21x11x9, all alpha 0.1", box("b4", 21, 11, 9, 500, 0.1, "")});
        cases.push_back({"box 21x11x9, all alpha 1", box("b5", 21, 11, 9, 500, 1.0, "")});
        for (const char* f : {"lshape.json@500", "studio.json@400"}) {
            const std::string path = std::string(ARDENT_SOURCE_DIR) + "/data/scenes/" + f;
            const size_t at = path.rfind('@');
            ardent::Scene sc = ardent::load_scene(path.substr(0, at));
            sc.simulation.max_frequency = std::atof(path.c_str() + at + 1);
            cases.push_back({f, sc});
        }
    }
    std::printf("%-34s %7s %8s %8s %12s %12s %s\n", "scene", "courant", "cells", "pml", "max E/E0",
                "E_end/E0", "growth per step (last half)");
    for (Case& c : cases) {
        c.scene.listener_grid_every = 0;
        c.scene.simulation.device = "cpu";
        ardent::Preprocessed p = ardent::preprocess(c.scene);
        if (use_keep) {
            std::vector<ardent::PmlSlab> kept;
            for (double k : keep_slabs)
                kept.push_back(p.decomposition.pml.at(static_cast<size_t>(k)));
            p.decomposition.pml = kept;
        }
        std::printf("%zu PML slabs\n", p.decomposition.pml.size());
        for (double lambda : courants) {
            ardent::SolverOptions o;
            o.precision = ardent::Precision::Float64;
            o.listener_grid = false;
            o.inject_source = false;
            o.ard_courant = lambda;
            auto solver = ardent::make_solver(p, o);
            std::mt19937 rng(12345);
            std::uniform_real_distribution<double> u(-1.0, 1.0);
            const ardent::Grid& g = p.air.grid;
            for (size_t i = 0; i < g.count(); ++i)
                if (p.air.air[i]) solver->set_pressure(g.coords(i), u(rng));
            const double e0 = solver->field_energy();
            double peak = e0, mid = 0, end = 0;
            std::string note;
            const size_t chunk = 100;
            try {
                for (size_t done = 0; done < steps; done += chunk) {
                    solver->advance(chunk);
                    const double e = solver->field_energy();
                    peak = std::max(peak, e);
                    if (done + chunk == steps / 2) mid = e;
                    end = e;
                }
            } catch (const ardent::SolverError& err) {
                note = std::string("stopped: ") + err.what();
            }
            const double rate = mid > 0 && end > 0
                                    ? std::pow(end / mid, 1.0 / static_cast<double>(steps / 2))
                                    : std::nan("");
            std::printf("%-34s %7.3f %8zu %8zu %12.4g %12.4g %.8f %s\n", c.name.c_str(), lambda,
                        p.air.air_cells, p.decomposition.pml_cells(), peak / e0, end / e0, rate,
                        note.c_str());
            std::fflush(stdout);
            if (where) print_peaks(p, *solver);
        }
    }
    return 0;
}
