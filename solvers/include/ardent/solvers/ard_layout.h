// The host-side plan of an ARD run, built once from a decomposed scene and shared by the CPU and
// CUDA backends: partitions stored contiguously and grouped by shape (so one FFT plan serves a
// group), flat cell indices for every interface line and PML line, and the cells of sources,
// receivers and the listener grid. Index space: [0, air_cells) are partition cells, partition by
// partition, x fastest; [air_cells, air_cells + pml_cells) are PML cells, line by line; then
// ghost_cells ghosts, each a fixed weighted sum of air and PML cells that the backends evaluate
// at the start of every step (what a reader sees beyond a partially absorbing wall).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/solvers/ard_physics.h"
#include "ardent/solvers/wall_physics.h"

namespace ardent::ard {

struct ShapeGroup {
    Index3 size;       // cells per axis
    size_t first = 0;  // first partition of the group (partitions are sorted by shape)
    size_t count = 0;
    size_t cells() const {
        return static_cast<size_t>(size[0]) * static_cast<size_t>(size[1]) *
               static_cast<size_t>(size[2]);
    }
};

struct PartitionSlot {
    Index3 origin;
    Index3 size;
    size_t offset = 0;  // first flat index
    uint32_t group = 0;
};

// One line of cells across an air-air interface, or across an air-PML face (then only the
// `right` side is air and `far_right` points at PML cells).
struct InterfaceLine {
    int32_t right[kReach];      // target cells j = 0, 1, ... into the right side (-1: not written)
    int32_t left[kReach];       // target cells into the left side (-1: not written)
    int32_t far_right[kReach];  // true field 1, 2, ... cells beyond the face, seen from the right
    int32_t far_left[kReach];   // ... seen from the left
    int32_t own_right[kReach];  // the right side's even extension, m = 0, 1, ... cells in
    int32_t own_left[kReach];
    int32_t scheme = kStencil;  // InterfaceScheme
};

// The forcing of one line on its right and left target cells from the field `p`, times `scale`
// (zero where a side has no target). Cells at or above `limit` read as zero: the C^2 correction
// applies the lines to the forcing, which exists on air cells only, while a line may reach
// through a thin partition into a PML line. Host and device code share it.
template <typename Real>
ARDENT_HD inline void line_terms(const InterfaceLine& line, const Real* p, Real scale,
                                 Real right[kReach], Real left[kReach],
                                 int32_t limit = 0x7fffffff) {
    Real far[kReach], own[kReach];
    auto at = [&](int32_t c) { return c < limit ? p[c] : Real(0); };
    for (int j = 0; j < kReach; ++j)
        right[j] = left[j] = 0;
    if (line.right[0] >= 0) {
        for (int k = 0; k < kReach; ++k) {
            far[k] = at(line.far_right[k]);
            own[k] = p[line.own_right[k]];
        }
        for (int j = 0; j < kReach && line.right[j] >= 0; ++j)
            right[j] = scale * interface_term(line.scheme, j, far, own);
    }
    if (line.left[0] >= 0) {
        for (int k = 0; k < kReach; ++k) {
            far[k] = at(line.far_left[k]);
            own[k] = p[line.own_left[k]];
        }
        for (int j = 0; j < kReach && line.left[j] >= 0; ++j)
            left[j] = scale * interface_term(line.scheme, j, far, own);
    }
}

struct LineBatch {
    size_t begin = 0, end = 0;  // lines [begin, end) write disjoint cells
};

// A PML line: the wall's absorbing layer behind one air-wall face. A wall of reflection R is
// modelled as a locally reacting impedance Z = rho c (1 + R) / (1 - R), the same admittance as
// the FDTD solver's: the line is a fully absorbing layer of impedance Z, joined to the air at the
// face by the scattering matrix [[R, k], [k, -R]], k = sqrt(1 - R^2), with the line storing
// sqrt((1 - R) / (1 + R)) times its pressure (so the coupling stays symmetric). Readers on
// either side of the face see ghosts: R times their own mirror image plus k times the other
// side. A layer tuned to R itself would return the reflection after a round trip through it
// (2 depth h / c late), which makes every absorbing face act as if the room were `depth` cells
// deeper there (docs/ard.md, "Walls").
struct PmlLine {
    int32_t air[kReach];  // what the line sees 1, 2, ... cells beyond its face (cell or ghost)
    int32_t material;
    double reflection;  // R at the face: (1 - g) / (1 + g), g the fitted wall's conductance
    double sigma_max;   // 1/s, at the rigid back of the layer
};

// One air-wall face of a material whose fitted admittance has frequency-dependent branches
// (wall_physics.h). The face's pressure is interpolated from the true field 0, 1, 2 cells in from
// the face (weights kWallFaceWeights, terms [cells_begin, cells_end) of Layout::wall_cells and
// wall_weights), and the change of its branches' velocities over the step drives the same cells
// with the same weights, so the coupling stays symmetric and the wall passive. Its branches are
// [branch_begin, branch_begin + branches) of Layout::wall_branches; their states are
// [state_begin, state_begin + branches).
struct WallFace {
    int32_t cells_begin, cells_end;
    int32_t branch_begin, branches;
    int32_t state_begin;
};

// The pressure at a wall face from the field 1/2, 3/2 and 5/2 cells in front of it (a face has
// at most kReach cells: one per distance, the true field there being a single air cell), for a
// field even about the face. Fitted like the interface stencil (scripts/fit_wall_face.py): least
// squares on reading cos(k x) at the face as 1 over k h in [0, 1.8] (0.74 f_max), a uniform field
// read exactly. The wall's coupling goes as the square of this read; the 6-point Lagrange weights
// (150, -25, 3) / 128 read 0.927 at 0.7 f_max and 0.859 at 0.8 f_max (these: 0.995, 0.953), and
// at normal incidence the top third octaves absorbed too little (docs/ard.md, "Walls").
inline constexpr double kWallFaceWeights[kReach] = {1.2100490150, -0.2660485118, 0.0559994967};

// An absorbing wall's field is not even about its face: its slope there, dp/dx = (1/c) dv/dt (v
// the wall's normal velocity into it, times rho c), adds m h dp/dx to the interpolation above,
// m = sum_j w_j (j + 1/2) = 0.346. Over one step that is `wall_face_slope` times the velocity
// change, m / (c dt / h).
inline double wall_face_slope(double courant) {
    double moment = 0;
    for (int j = 0; j < kReach; ++j)
        moment += kWallFaceWeights[j] * (j + 0.5);
    return moment / courant;
}

// One wall face's step, host and device alike: given the interpolated face pressure u_read at
// step n, its branches (table[0, branches), states s and v at 0, stride, 2 stride, ...) and the
// drive on the face's cells, -scale dv with scale = c / (h dt).
// - A branch with mass is stepped with the face pressure u at step n, its velocity taken at the
//   half steps n -/+ 1/2, so its change dv over the step is centred on step n, as the drive needs.
// - A massless branch (an R-C high-pass) stepped that way has an undriven pole at z = -1 that
//   ARD's explicit coupling makes grow, so it takes (u + u_prev) / 2, which cancels that pole,
//   half a step early, and its dv is extrapolated half a step forward, (3 dv - dv_prev) / 2.
// - u itself is u_read less the slope's part, slope * dv (wall_face_slope), and dv depends on u:
//   one linear equation per face, solved before the branches step. Besides removing the bias
//   (in a duct, |R| of a resonant wall at 400 Hz of a 1 kHz run 0.644 against 0.640 exact, 0.617
//   without), it divides the branches' per-step gain by 1 + slope * gain, which keeps the
//   explicit coupling stable for larger gains.
// Until 2026-11-27 every branch was stepped the second way, and u was u_read: the extrapolation's
// phase error (46 degrees at w dt = 2.1) made mass-like branches active near ARD's highest modes,
// and the bundled studio and living room grew without bound at 1 kHz (docs/materials.md,
// "Stability in ARD"). Updates u_prev, dv_prev (the massless branches' dv) and the branch states;
// returns the drive. `Most` > 0 promises at most that many branches: the loops then have a
// constant bound, so a device caller's states in local arrays stay in registers.
template <int Most = 0, typename Real>
ARDENT_HD inline Real wall_face_drive(Real u_read, int32_t branches,
                                      const walls::BranchCoefficients<Real>* table, Real* s,
                                      Real* v, long long stride, Real& u_prev, Real& dv_prev,
                                      Real scale, Real slope) {
    const int32_t bound = Most > 0 ? Most : branches;
    // The whole dv (the massless part extrapolated) as gain * u - rest.
    Real gain = 0, rest = dv_prev / 2;
    for (int32_t b = 0; b < bound; ++b) {
        if (b >= branches) break;
        const walls::BranchCoefficients<Real>& t = table[b];
        const Real history = walls::branch_history(t, s[b * stride], v[b * stride]);
        if (t.massless != 0) {
            gain += 3 * t.a;
            rest += 3 * history / 2 - 3 * t.a * u_prev;
        } else {
            gain += 4 * t.a;
            rest += history;
        }
    }
    const Real u = (u_read + slope * rest) / (1 + slope * gain);
    const Real centred = 4 * u, lagged = 2 * (u + u_prev);
    u_prev = u;
    Real dv = 0, dv_massless = 0;
    for (int32_t b = 0; b < bound; ++b) {
        if (b >= branches) break;
        const walls::BranchCoefficients<Real>& t = table[b];
        const Real d =
            walls::branch_step(t, t.massless != 0 ? lagged : centred, s[b * stride], v[b * stride]);
        (t.massless != 0 ? dv_massless : dv) += d;
    }
    const Real drive = -scale * (dv + (3 * dv_massless - dv_prev) / 2);
    dv_prev = dv_massless;
    return drive;
}

struct Layout {
    double h = 0, c = 0, dt = 0;
    size_t air_cells = 0, pml_cells = 0;
    // A rank's part of a distributed run (ard_distribute.h): its partitions' cells are
    // [0, owned_air_cells), then come copies of other ranks' air cells it reads (the halo, kept
    // current by exchanges); its other ranks' PML cells are halo_cells after the ghosts. A whole
    // run owns everything: owned_air_cells == air_cells, halo_cells == 0.
    size_t owned_air_cells = 0;
    size_t halo_cells = 0;
    int pml_depth = 0;
    std::vector<PartitionSlot> partitions;
    std::vector<ShapeGroup> groups;
    std::vector<InterfaceLine> lines;  // interface and wall lines, then PML coupling lines
    size_t air_lines = 0;              // lines [0, air_lines) couple air to air
    size_t air_batches = 0;            // batches [0, air_batches) hold exactly those lines
    std::vector<LineBatch> batches;    // run in order; each batch in parallel
    std::vector<PmlLine> pml;          // PML lines; line L owns cells air_cells + L * depth
    // Frequency-dependent walls: the branch table (every material's), the faces, their cells.
    std::vector<walls::BranchCoefficients<double>> wall_branches;
    std::vector<WallFace> wall_faces;
    std::vector<int32_t> wall_cells;
    std::vector<double> wall_weights;
    size_t wall_states = 0;
    int32_t source = -1;             // -1: not in this rank's part
    std::vector<int32_t> receivers;  // -1: not in this rank's part (recorded as zero)
    // Preprocessed::listener_cells(): the grid points, then their one-cell neighbours (for the
    // gradient); backends sample whatever this list holds.
    std::vector<int32_t> grid_cells;  // -1: not in this rank's part
    std::vector<Vec3> grid_positions;

    // Ghost g is field cell air_cells + pml_cells + g, the sum over its terms
    // [ghost_offsets[g], ghost_offsets[g + 1]) of ghost_weights[t] * field[ghost_terms[t]];
    // terms are air and PML cells, never ghosts.
    size_t ghost_cells = 0;
    // Ghosts [pml_ghosts, ghost_cells) are the PML lines' and their coupling lines' (made last):
    // their accelerations are evaluated too (pml_time_correction in ard_physics.h).
    size_t pml_ghosts = 0;
    std::vector<int32_t> ghost_offsets{0};
    std::vector<int32_t> ghost_terms;
    std::vector<double> ghost_weights;
    size_t field_cells() const { return air_cells + pml_cells + ghost_cells + halo_cells; }

    int32_t flat(Index3 cell) const;  // flat index of an air cell, -1 otherwise
    std::vector<int32_t> cell_index;  // per grid cell: flat index or -1 (kept for lookups)
    Grid grid;
};

// sigma_max of a graded PML of `depth` cells (profile (x/L)^2) whose ideal round-trip reflection
// exp(-2 integral(sigma) / c) is sqrt(1 - alpha); alpha = 1 is capped at -60 dB (a stronger
// layer only adds the discrete layer's own reflection). Walls use alpha = 1 (PmlLine).
double pml_sigma_max(double alpha, double c, double h, int depth);
inline constexpr int kPmlProfileOrder = 2;

// The graded layer of a PML line with damping sigma_max and `depth` cells, as both backends
// store it: sigma dt at the centre of cell k, and the decay factor exp(-sigma dt) at the face
// between cells f and f + 1.
inline double pml_cell_sigma_dt(double sigma_max, int k, int depth, double dt) {
    return sigma_max * std::pow((k + 0.5) / depth, kPmlProfileOrder) * dt;
}
inline double pml_face_decay(double sigma_max, int f, int depth, double dt) {
    return std::exp(-sigma_max * std::pow((f + 1.0) / depth, kPmlProfileOrder) * dt);
}

// The mode update's tables per shape group and mode [kz][ky][kx], groups in layout order:
// p_new = a p - p_old + b f, with b carrying the DCT round trip's 1/(8N), and the filter phi
// that turns the modes into the field q the solvers expose. On all cores (a hall's 20 M modes
// took 1.5 s of one). `offsets` gets each group's first mode.
template <typename Real>
void build_mode_tables(const Layout& L, std::vector<size_t>& offsets, std::vector<Real>& a,
                       std::vector<Real>& b, std::vector<Real>& phi);

// Throws ResourceError, naming `scene`, when a field of `cells` cells cannot be numbered with the
// layout's int32 cell indices (the CUDA backend's DCT tiles count a group's cells in 32 bits too).
void check_cell_indices(const std::string& scene, size_t cells);

// courant: c*dt/h, 0 for kArdCourant.
Layout build_layout(const Preprocessed& p, size_t source, bool listener_grid, double courant = 0,
                    bool receiver_gradients = false);

}  // namespace ardent::ard
