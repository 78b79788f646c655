// The FDTD benchmark shape of López et al. 2013 (section 5.2) shared by bench_fdtd_cpu and
// bench_fdtd_cuda: a closed rigid cube whose grid (air plus the preprocessor's padding) has n^3
// cells, started from a Gaussian pressure pulse at its centre instead of an injected source, as
// in the paper. The cell size follows from f_max at 10 points per wavelength; it does not change
// the cost of a step. `absorption` (scene JSON) puts a material on every wall: the rigid paper's
// box by default, or e.g. a per-band one whose fitted wall has frequency-dependent branches.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/solver.h"

namespace ardent::bench {

inline Preprocessed lopez_box(int grid_cells, double f_max, const std::string& absorption = "0") {
    const int air = grid_cells - 2 * kGridPadding;
    const double h = 343.0 / (10 * f_max);
    const double side = air * h;
    char buf[2048];
    std::snprintf(buf, sizeof buf, R"({"format": "ardent-scene/1", "name": "lopez box %d^3",
        "geometry": {"box": [%.17g, %.17g, %.17g]},
        "materials": {"wall": {"absorption": %s}}, "surfaces": {"*": "wall"},
        "sources": [{"name": "S", "position": [%.17g, %.17g, %.17g]}],
        "receivers": [{"name": "R", "position": [%.17g, %.17g, %.17g]}],
        "simulation": {"solver": "fdtd", "device": "cpu", "max_frequency": %.17g}})",
                  grid_cells, side, side, side, absorption.c_str(), 0.5 * side, 0.5 * side,
                  0.5 * side, 0.3 * side, 0.6 * side, 0.7 * side, f_max);
    PreprocessOptions o;
    o.decompose = false;  // FDTD needs no ARD partitions
    return preprocess(parse_scene(buf, "lopez.json"), o);
}

// A Gaussian pulse of width sigma cells at the source cell (both time levels: at rest).
inline void gaussian_pulse(Solver& s, const Preprocessed& p, double sigma = 2.0) {
    const Index3 c = p.air.sources.at(0).cell;
    const int r = static_cast<int>(std::ceil(4 * sigma));
    for (int k = -r; k <= r; ++k)
        for (int j = -r; j <= r; ++j)
            for (int i = -r; i <= r; ++i) {
                const Index3 x{c[0] + i, c[1] + j, c[2] + k};
                if (!p.air.is_air(x)) continue;
                s.set_pressure(x, std::exp(-(i * i + j * j + k * k) / (2 * sigma * sigma)));
            }
}

}  // namespace ardent::bench
