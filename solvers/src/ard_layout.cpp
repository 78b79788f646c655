#include "ardent/solvers/ard_layout.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/preprocess/wall_admittance.h"
#include "ardent/solvers/ard_wall_fit.h"

namespace ardent::ard {
namespace {

Index3 step(Index3 c, int axis, int d) {
    c[axis] += d;
    return c;
}

// Even (Neumann) extension of a partition of n cells along its axis: the cell m cells in from a
// face, folded back into [0, n).
int fold(int m, int n) {
    const int period = 2 * n;
    int r = m % period;
    if (r < 0) r += period;
    return r < n ? r : period - 1 - r;
}

// f(cell) for the air cell on each face of a slab.
template <typename F>
void for_each_face(const PmlSlab& s, F&& f) {
    const int a = s.axis, u = (a + 1) % 3, v = (a + 2) % 3;
    for (int jv = s.lo[v]; jv < s.hi[v]; ++jv)
        for (int ju = s.lo[u]; ju < s.hi[u]; ++ju) {
            Index3 c;
            c[a] = s.lo[a];
            c[u] = ju;
            c[v] = jv;
            f(c);
        }
}

using Terms = std::vector<std::pair<int32_t, double>>;

// Sums of terms that readers see (ghost cells) made by one part of the layout, numbered from 0 in
// the order made, then appended to the layout's in the order of the parts (append_to): the parts
// built on several threads number their ghosts as one thread building them in turn would.
struct Ghosts {
    std::vector<int32_t> terms;
    std::vector<double> weights;
    std::vector<int32_t> ends;  // per ghost, the end of its terms

    // A reader's index for a sum of terms: the cell itself for a single cell of weight 1, else a
    // new ghost, -2 - its number here (readers rarely share a sum: sharing would save little and
    // cost a lookup). Sorts and merges `merged` in place (readers come in millions: no
    // allocation per call).
    int32_t intern(Terms& merged) {
        std::sort(merged.begin(), merged.end());
        size_t kept = 0;
        for (size_t i = 0; i < merged.size(); ++i) {
            if (kept > 0 && merged[kept - 1].first == merged[i].first)
                merged[kept - 1].second += merged[i].second;
            else
                merged[kept++] = merged[i];
        }
        merged.resize(kept);
        std::erase_if(merged, [](const auto& e) { return e.second == 0; });
        if (merged.size() == 1 && merged[0].second == 1) return merged[0].first;
        for (const auto& [cell, w] : merged) {
            terms.push_back(cell);
            weights.push_back(w);
        }
        ends.push_back(static_cast<int32_t>(terms.size()));
        return -2 - static_cast<int32_t>(ends.size() - 1);
    }

    // Appends these ghosts to L's; returns the layout's number of the first.
    int32_t append_to(Layout& L) const {
        const auto first = static_cast<int32_t>(L.ghost_offsets.size() - 1);
        const auto base = static_cast<int32_t>(L.ghost_terms.size());
        L.ghost_terms.insert(L.ghost_terms.end(), terms.begin(), terms.end());
        L.ghost_weights.insert(L.ghost_weights.end(), weights.begin(), weights.end());
        for (int32_t e : ends)
            L.ghost_offsets.push_back(base + e);
        return first;
    }
};

// A reference to ghost g of a part's Ghosts made a reference to the layout's ghost first + g
// (still -2 - ghost until pml_cells is known).
void rebase(int32_t& c, int32_t first) {
    if (c <= -2) c = -2 - (first + (-2 - c));
}

void rebase(InterfaceLine& line, int32_t first) {
    for (int j = 0; j < kReach; ++j) {
        rebase(line.far_right[j], first);
        rebase(line.far_left[j], first);
    }
}

}  // namespace

int32_t Layout::flat(Index3 cell) const {
    if (!grid.contains(cell)) return -1;
    return cell_index[grid.index(cell)];
}

double pml_sigma_max(double alpha, double c, double h, int depth) {
    const double r = std::max(std::sqrt(std::max(0.0, 1.0 - alpha)), 1e-3);
    const double length = depth * h;
    // integral of sigma_max (x/L)^m over the layer is sigma_max L / (m + 1).
    return -(c / 2) * std::log(r) * (kPmlProfileOrder + 1) / length;
}

template <typename Real>
void build_mode_tables(const Layout& L, std::vector<size_t>& offsets, std::vector<Real>& a,
                       std::vector<Real>& b, std::vector<Real>& phi) {
    offsets.resize(L.groups.size());
    size_t total = 0;
    std::vector<std::pair<size_t, int>> planes;  // (group, kz): the parallel loop's items
    for (size_t g = 0; g < L.groups.size(); ++g) {
        offsets[g] = total;
        total += L.groups[g].cells();
        for (int kz = 0; kz < L.groups[g].size[2]; ++kz)
            planes.emplace_back(g, kz);
    }
    a.resize(total);
    b.resize(total);
    phi.resize(total);
    const double pi = 3.14159265358979323846;
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t item = 0; item < planes.size(); ++item) {
        const auto [g, kz] = planes[item];
        const Index3 n = L.groups[g].size;
        const double norm = 1.0 / (8.0 * static_cast<double>(L.groups[g].cells()));
        size_t i = offsets[g] +
                   static_cast<size_t>(kz) * static_cast<size_t>(n[0]) * static_cast<size_t>(n[1]);
        for (int ky = 0; ky < n[1]; ++ky)
            for (int kx = 0; kx < n[0]; ++kx, ++i) {
                const double wx = kx / (n[0] * L.h), wy = ky / (n[1] * L.h), wz = kz / (n[2] * L.h);
                const double w = L.c * pi * std::sqrt(wx * wx + wy * wy + wz * wz);
                const ModeCoefficients m = mode_coefficients(w, L.dt);
                a[i] = static_cast<Real>(m.a);
                b[i] = static_cast<Real>(m.b * norm);
                phi[i] = static_cast<Real>(field_filter(w, L.dt));
            }
    }
}

template void build_mode_tables<float>(const Layout&, std::vector<size_t>&, std::vector<float>&,
                                       std::vector<float>&, std::vector<float>&);
template void build_mode_tables<double>(const Layout&, std::vector<size_t>&, std::vector<double>&,
                                        std::vector<double>&, std::vector<double>&);

void check_cell_indices(const std::string& scene, size_t cells) {
    constexpr auto most = static_cast<size_t>(std::numeric_limits<int32_t>::max());
    if (cells <= most) return;
    throw ResourceError(scene + ": the ARD solver's field would have " + std::to_string(cells) +
                        " cells, and it numbers them with 32 bits (at most " +
                        std::to_string(most) + "). Lower simulation.max_frequency.");
}

Layout build_layout(const Preprocessed& p, size_t source, bool listener_grid, double courant,
                    bool receiver_gradients) {
    Layout L;
    const Grid& g = p.air.grid;
    const Decomposition& d = p.decomposition;
    L.grid = g;
    L.h = g.h;
    L.c = p.scene.simulation.speed_of_sound;
    L.dt = ard_time_step(L.h, L.c, courant > 0 ? courant : kArdCourant);
    L.pml_depth = d.pml_depth;

    // Partitions grouped by shape, groups in order of first appearance (deterministic).
    std::vector<size_t> order(d.partitions.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::map<Index3, uint32_t> group_of;
    std::vector<uint32_t> group_id(d.partitions.size());
    for (size_t i = 0; i < d.partitions.size(); ++i) {
        auto [it, inserted] =
            group_of.emplace(d.partitions[i].size, static_cast<uint32_t>(group_of.size()));
        group_id[i] = it->second;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return group_id[a] < group_id[b]; });
    L.groups.resize(group_of.size());
    L.partitions.resize(order.size());
    std::vector<size_t> slot_of(d.partitions.size());
    size_t offset = 0;
    for (size_t s = 0; s < order.size(); ++s) {
        const Partition& P = d.partitions[order[s]];
        const uint32_t gid = group_id[order[s]];
        ShapeGroup& grp = L.groups[gid];
        if (grp.count == 0) {
            grp.size = P.size;
            grp.first = s;
        }
        ++grp.count;
        L.partitions[s] = {P.origin, P.size, offset, gid};
        slot_of[order[s]] = s;
        offset += P.cells();
    }
    L.air_cells = L.owned_air_cells = offset;
    check_cell_indices(p.scene.display_name(), L.air_cells);

    L.cell_index.assign(g.count(), -1);
    for (const PartitionSlot& s : L.partitions) {
        int32_t f = static_cast<int32_t>(s.offset);
        for (int k = 0; k < s.size[2]; ++k)
            for (int j = 0; j < s.size[1]; ++j)
                for (int i = 0; i < s.size[0]; ++i)
                    L.cell_index[g.index(s.origin[0] + i, s.origin[1] + j, s.origin[2] + k)] = f++;
    }

    // Per material, its fitted wall (wall_admittance.h): the conductance is the reflection R at
    // a face with a PML line behind it (none where it is 0: R = 1), the branches drive the air in
    // front of the face (WallFace). An open material (absorption 1) is the bare PML line, R = 0.
    const size_t materials = p.scene.materials.size();
    // Fitted on all cores: about 0.15 s a material on one.
    std::vector<WallFit> fits(materials);
    std::vector<std::exception_ptr> failed(materials);
#pragma omp parallel for schedule(dynamic)
    for (size_t m = 0; m < materials; ++m) {
        try {
            fits[m] = fit_wall(p.scene.materials[m], p.scene.simulation.max_frequency);
            // The branches as ARD steps them: refitted to this time step (ard_wall_fit.h).
            fits[m].admittance.branches = fit_stepped_branches(fits[m].admittance.branches, L.dt,
                                                               p.scene.simulation.max_frequency);
        } catch (...) {
            failed[m] = std::current_exception();
        }
    }
    for (const std::exception_ptr& e : failed)
        if (e) std::rethrow_exception(e);
    const auto conductance = [&](size_t m) {
        return fits[m].open ? 1.0 : fits[m].admittance.conductance;
    };

    // The PML lines, numbered before any line reads them: one per air-wall face of an absorbing
    // slab whose wall has a conductance, ordered by axis and side (so that the coupling lines of
    // one (axis, side) form a batch that writes disjoint cells), then slab, then face. pml_line_at
    // maps (flat air cell, axis, side) to the line behind that face.
    struct PmlFace {
        Index3 cell;  // the air cell on the wall face
        int axis, side;
        const PmlSlab* slab;
    };
    std::vector<PmlFace> pml_faces;
    // Hashed on (cell, axis, side): an ordered map of a hall's million faces cost seconds.
    std::unordered_map<int64_t, int32_t> pml_line_at;
    const auto face_key = [](int32_t cell, int axis, int side) {
        return static_cast<int64_t>(cell) * 8 + axis * 2 + (side > 0 ? 1 : 0);
    };
    for (int a = 0; a < 3; ++a)
        for (int side : {-1, 1})
            for (const PmlSlab& s : d.pml) {
                if (s.axis != a || s.side != side) continue;
                if (!(conductance(static_cast<size_t>(s.material)) > 0)) continue;  // R = 1
                for_each_face(s, [&](Index3 a0) {
                    pml_line_at[face_key(L.flat(a0), a, side)] =
                        static_cast<int32_t>(pml_faces.size());
                    pml_faces.push_back({a0, a, side, &s});
                });
            }

    // The share of each face's area the true surface has (AirModel::face_area): on a slanted
    // wall's staircase the conductance is scaled by it, so the faces absorb what the wall does.
    const auto face_area = [&](Index3 air_cell, int axis, int side) {
        return p.air.face_area(g.index(air_cell), g.index(step(air_cell, axis, side)));
    };
    std::vector<double> reflection(pml_faces.size()), transmission(pml_faces.size());
    for (size_t i = 0; i < pml_faces.size(); ++i) {
        const PmlFace& f = pml_faces[i];
        const auto m = static_cast<size_t>(f.slab->material);
        const double beta = conductance(m) * face_area(f.cell, f.axis, f.side);
        reflection[i] = std::clamp((1 - beta) / (1 + beta), 0.0, 1.0);
        transmission[i] = std::sqrt(1.0 - reflection[i] * reflection[i]);
    }
    auto pml_cell = [&](size_t line, int depth) {
        if (depth >= L.pml_depth) depth = 2 * L.pml_depth - 1 - depth;  // rigid back
        return static_cast<int32_t>(L.air_cells + line * static_cast<size_t>(L.pml_depth) +
                                    static_cast<size_t>(depth));
    };

    // The true field `k` cells from `start` along `dir` (start itself for k = 0), times `weight`,
    // added to `out`: walks the grid, reflects at a rigid wall as its mirror image, and at an
    // absorbing face splits into R times the mirror image and sqrt(1 - R^2) times the PML line
    // behind it (whose own back is rigid, beyond any reach). Every reader of a cell beyond a face
    // goes through here, so the coupling stays symmetric: a PML line that reads an air cell
    // beyond a thin partition is read back by that cell's own lines with the same weight (an
    // asymmetric pairing grew without bound in furnished rooms, docs/ard.md).
    // A thin face between two air cells (air.h) is a wall on both sides: walks mirror there, and
    // neither interface nor wall lines reach across it.
    const auto blocked = [&](Index3 c, int axis, int dir) {
        return (p.air.blocked_links(g.index(c)) >> (2 * axis + (dir > 0 ? 1 : 0)) & 1) != 0;
    };
    auto walk = [&](Index3 start, int axis, int dir, int k, double weight, Terms& out) {
        int heading = dir;
        Index3 c = start;
        for (int s = 0; s < k; ++s) {
            const Index3 next = step(c, axis, heading);
            if (L.flat(next) >= 0 && !blocked(c, axis, heading)) {
                c = next;
                continue;
            }
            const auto pml = pml_line_at.find(face_key(L.flat(c), axis, heading));
            if (pml != pml_line_at.end()) {
                const auto line = static_cast<size_t>(pml->second);
                if (transmission[line] > 0)
                    out.emplace_back(pml_cell(line, k - s - 1), weight * transmission[line]);
                weight *= reflection[line];
                if (weight == 0) return;
            }
            heading = -heading;  // mirror: the next value is the current cell's again
        }
        out.emplace_back(L.flat(c), weight);
    };
    // The true field `k` cells from `start` as a reader's index (Ghosts::intern); `scratch` is the
    // caller's, one per thread.
    auto true_field = [&](Index3 start, int axis, int dir, int k, Terms& scratch, Ghosts& ghosts) {
        scratch.clear();
        walk(start, axis, dir, k, 1.0, scratch);
        return ghosts.intern(scratch);
    };

    // The fitted interface matrix assumes a field that is a sum of plane waves in band along the
    // line; the one line through the source cell is not (its point forcing), and keeps the
    // stencil. A wider stencil zone (4 cells around the source) made the free-field pulse
    // 0.3 dB truer at 0.7 f_max with the source beside a partition corner, but every wave of a
    // small room crosses that zone again and again: in rigid boxes against image sources
    // (tests/test_rigid_boxes.cpp, tuning seeds 1000-1019) the worst error over 0.25 s fell
    // from 9.5 % to 7.7 % and the mean from 3.5 % to 2.2 % with the zone cut to this line.
    const Index3 src_cell = p.air.sources.at(source).cell;
    auto near_source = [&](Index3 face_cell, int axis) {
        for (int ax = 0; ax < 3; ++ax) {
            const int off = src_cell[ax] - face_cell[ax];
            const int lo = ax == axis ? -kReach : 0;
            const int hi = ax == axis ? kReach - 1 : 0;
            if (off < lo || off > hi) return false;
        }
        return true;
    };

    // Interface lines, batched by axis and by a colour such that the kReach-deep layers of one
    // batch never share a cell (the decomposition's colours assume 3-deep layers).
    std::vector<int> color(d.interfaces.size(), 0);
    {
        std::vector<std::vector<size_t>> by_partition(d.partitions.size());
        for (size_t i = 0; i < d.interfaces.size(); ++i) {
            const Interface& f = d.interfaces[i];
            const int u = (f.axis + 1) % 3, v = (f.axis + 2) % 3;
            std::vector<int> used;
            for (int32_t side : {f.left, f.right}) {
                if (d.partitions[side].size[f.axis] >= 2 * kReach) continue;
                for (size_t j : by_partition[side]) {
                    const Interface& o = d.interfaces[j];
                    if (o.axis == f.axis && o.lo[u] < f.hi[u] && f.lo[u] < o.hi[u] &&
                        o.lo[v] < f.hi[v] && f.lo[v] < o.hi[v])
                        used.push_back(color[j]);
                }
            }
            while (std::find(used.begin(), used.end(), color[i]) != used.end())
                ++color[i];
            by_partition[f.left].push_back(i);
            by_partition[f.right].push_back(i);
        }
    }
    const int max_color = d.interfaces.empty() ? 0 : *std::max_element(color.begin(), color.end());
    // Each interface's lines and the ghosts their walks make, on all cores (a hall's 30 000
    // interfaces took a second of one core), then laid out in batch order.
    struct InterfaceLines {
        std::vector<InterfaceLine> lines;
        Ghosts ghosts;
    };
    std::vector<InterfaceLines> by_interface(d.interfaces.size());
#pragma omp parallel
    {
        Terms scratch;
#pragma omp for schedule(dynamic, 8)
        for (size_t i = 0; i < d.interfaces.size(); ++i) {
            const Interface& f = d.interfaces[i];
            InterfaceLines& out = by_interface[i];
            const int a = f.axis, u = (a + 1) % 3, v = (a + 2) % 3;
            const int n_left = d.partitions[f.left].size[a],
                      n_right = d.partitions[f.right].size[a];
            for (int jv = f.lo[v]; jv < f.hi[v]; ++jv)
                for (int ju = f.lo[u]; ju < f.hi[u]; ++ju) {
                    Index3 r0;
                    r0[a] = f.plane;
                    r0[u] = ju;
                    r0[v] = jv;
                    const Index3 l0 = step(r0, a, -1);
                    if (blocked(l0, a, +1)) continue;  // a thin face: walls on both sides
                    InterfaceLine line{};
                    if (n_left >= kReach && n_right >= kReach && !near_source(r0, a))
                        line.scheme = kThick;
                    for (int j = 0; j < kReach; ++j) {
                        line.right[j] = j < n_right ? L.flat(step(r0, a, j)) : -1;
                        line.left[j] = j < n_left ? L.flat(step(l0, a, -j)) : -1;
                        line.far_right[j] = true_field(l0, a, -1, j, scratch, out.ghosts);
                        line.far_left[j] = true_field(r0, a, +1, j, scratch, out.ghosts);
                        line.own_right[j] = L.flat(step(r0, a, fold(j, n_right)));
                        line.own_left[j] = L.flat(step(l0, a, -fold(j, n_left)));
                    }
                    out.lines.push_back(line);
                }
        }
    }
    // Room for every line but the few wall lines, and for the interfaces' ghosts: growing by
    // copies cost more than making them.
    size_t interface_lines = 0, interface_ghosts = 0, ghost_terms = 0;
    for (const InterfaceLines& part : by_interface) {
        interface_lines += part.lines.size();
        interface_ghosts += part.ghosts.ends.size();
        ghost_terms += part.ghosts.terms.size();
    }
    L.lines.reserve(interface_lines + pml_faces.size());
    L.ghost_offsets.reserve(interface_ghosts + 1);
    L.ghost_terms.reserve(ghost_terms);
    L.ghost_weights.reserve(ghost_terms);
    for (int a = 0; a < 3; ++a)
        for (int col = 0; col <= max_color; ++col) {
            const size_t begin = L.lines.size();
            for (size_t i = 0; i < d.interfaces.size(); ++i) {
                if (d.interfaces[i].axis != a || color[i] != col) continue;
                InterfaceLines& part = by_interface[i];
                const int32_t first = part.ghosts.append_to(L);
                for (InterfaceLine& line : part.lines) {
                    rebase(line, first);
                    L.lines.push_back(line);
                }
                part = {};
            }
            if (L.lines.size() > begin) L.batches.push_back({begin, L.lines.size()});
        }

    // Wall lines: a partition thinner than kReach cells sees, through its Neumann operator, its own
    // short even extension beyond a rigid wall, where the true field is the mirror image of the
    // air on this side (reaching into the next partition). Thicker partitions need nothing here.
    Terms scratch;
    for (int a = 0; a < 3; ++a)
        for (int side : {-1, 1}) {
            const size_t begin = L.lines.size();
            const int u = (a + 1) % 3, v = (a + 2) % 3;
            for (const PartitionSlot& P : L.partitions) {
                const int n = P.size[a];
                if (n >= kReach) continue;
                Index3 a0 = P.origin;
                if (side > 0) a0[a] += n - 1;
                for (int jv = 0; jv < P.size[v]; ++jv)
                    for (int ju = 0; ju < P.size[u]; ++ju) {
                        Index3 c = a0;
                        c[u] += ju;
                        c[v] += jv;
                        const Index3 beyond = step(c, a, side);
                        // Air: an interface handles it (unless a thin face lies between).
                        if (L.flat(beyond) >= 0 && !blocked(c, a, side)) continue;
                        // A PML line behind the face handles it.
                        if (pml_line_at.count(face_key(L.flat(c), a, side))) continue;
                        InterfaceLine line{};
                        Ghosts ghosts;
                        for (int j = 0; j < kReach; ++j) {
                            line.right[j] = j < n ? L.flat(step(c, a, -side * j)) : -1;
                            line.far_right[j] = true_field(c, a, -side, j, scratch, ghosts);
                            line.own_right[j] = L.flat(step(c, a, -side * fold(j, n)));
                            line.left[j] = line.far_left[j] = line.own_left[j] = -1;
                        }
                        rebase(line, ghosts.append_to(L));
                        L.lines.push_back(line);
                    }
            }
            if (L.lines.size() > begin) L.batches.push_back({begin, L.lines.size()});
        }

    L.air_lines = L.lines.size();

    // Frequency-dependent walls: one WallFace per air-wall face of a material with branches, its
    // branches' conductances scaled by the face's area share (a branch's velocity is linear in
    // its conductance), one table per material and share in use.
    std::map<std::pair<size_t, uint8_t>, int32_t> first_branch;
    const auto branches_of = [&](size_t m) {
        return fits[m].open ? 0 : static_cast<int>(fits[m].admittance.branches.size());
    };
    const auto table_for = [&](size_t m, double area) {
        const auto [it, added] =
            first_branch.try_emplace({m, static_cast<uint8_t>(std::lround(area * kFullArea))},
                                     static_cast<int32_t>(L.wall_branches.size()));
        if (added)
            for (const AdmittanceBranch& b : fits[m].admittance.branches)
                L.wall_branches.push_back(
                    walls::branch_coefficients(b.conductance * area, b.mass, b.stiffness, L.dt));
        return it->second;
    };
    for (const PmlSlab& s : d.pml) {
        const auto m = static_cast<size_t>(s.material);
        const int branches = branches_of(m);
        if (branches == 0) continue;
        for_each_face(s, [&](Index3 c) {
            // The true field 0, 1, 2 cells in from the face, through thin partitions; PML cells
            // (beyond an absorbing face further on) are left out of both the interpolation and
            // the drive.
            Terms t;
            for (int j = 0; j < kReach; ++j)
                walk(c, s.axis, -s.side, j, kWallFaceWeights[j], t);
            std::sort(t.begin(), t.end());
            WallFace f{};
            f.cells_begin = static_cast<int32_t>(L.wall_cells.size());
            for (const auto& [cell, w] : t) {
                if (cell < 0 || static_cast<size_t>(cell) >= L.air_cells) continue;
                if (L.wall_cells.size() > static_cast<size_t>(f.cells_begin) &&
                    L.wall_cells.back() == cell)
                    L.wall_weights.back() += w;
                else {
                    L.wall_cells.push_back(cell);
                    L.wall_weights.push_back(w);
                }
            }
            f.cells_end = static_cast<int32_t>(L.wall_cells.size());
            f.branch_begin = table_for(m, face_area(c, s.axis, s.side));
            f.branches = branches;
            f.state_begin = static_cast<int32_t>(L.wall_states);
            L.wall_states += static_cast<size_t>(branches);
            L.wall_faces.push_back(f);
        });
    }
    L.air_batches = L.batches.size();

    // PML lines and their coupling lines, one batch per (axis, side). Every line is a fully
    // absorbing layer; the wall's reflection happens at the face (PmlLine). Made in blocks of
    // faces on all cores (a hall's 1.4 M faces took a second of one core), then laid out in order.
    struct PmlLines {
        std::vector<PmlLine> pml;
        std::vector<InterfaceLine> lines;
        Ghosts ghosts;
    };
    constexpr size_t kFacesPerBlock = 4096;
    std::vector<PmlLines> by_block((pml_faces.size() + kFacesPerBlock - 1) / kFacesPerBlock);
    const double sigma_max = pml_sigma_max(1.0, L.c, L.h, L.pml_depth);
#pragma omp parallel
    {
        Terms t;
#pragma omp for schedule(dynamic, 1)
        for (size_t b = 0; b < by_block.size(); ++b) {
            PmlLines& out = by_block[b];
            const size_t end = std::min((b + 1) * kFacesPerBlock, pml_faces.size());
            for (size_t i = b * kFacesPerBlock; i < end; ++i) {
                const PmlFace& f = pml_faces[i];
                const int a = f.axis, side = f.side;
                const int n = L.partitions[slot_of[f.slab->partition]].size[a];
                PmlLine pl{};
                pl.material = f.slab->material;
                pl.reflection = reflection[i];
                pl.sigma_max = sigma_max;
                InterfaceLine line{};
                for (int j = 0; j < kReach; ++j) {
                    // The line's view of the air side: k times the air, minus R times its own
                    // mirror.
                    t.clear();
                    walk(f.cell, a, -side, j, transmission[i], t);
                    if (reflection[i] > 0) t.emplace_back(pml_cell(i, j), -reflection[i]);
                    pl.air[j] = out.ghosts.intern(t);
                    // The air side plays "right": j cells in from the wall face.
                    line.right[j] = j < n ? L.flat(step(f.cell, a, -side * j)) : -1;
                    line.left[j] = -1;
                    line.far_right[j] = true_field(f.cell, a, side, j + 1, t, out.ghosts);
                    line.own_right[j] = L.flat(step(f.cell, a, -side * fold(j, n)));
                    line.far_left[j] = line.own_left[j] = -1;
                }
                out.pml.push_back(pl);
                out.lines.push_back(line);
            }
        }
    }
    // Laid out in order, each block where the ones before it end (a serial copy of a hall's
    // million lines and their ghosts took longer than making them).
    const size_t line0 = L.lines.size(), ghost0 = L.ghost_offsets.size() - 1,
                 term0 = L.ghost_terms.size();
    std::vector<size_t> ghosts_before(by_block.size() + 1, 0), terms_before(by_block.size() + 1, 0);
    for (size_t b = 0; b < by_block.size(); ++b) {
        ghosts_before[b + 1] = ghosts_before[b] + by_block[b].ghosts.ends.size();
        terms_before[b + 1] = terms_before[b] + by_block[b].ghosts.terms.size();
    }
    L.lines.resize(line0 + pml_faces.size());
    L.pml.resize(pml_faces.size());
    L.ghost_offsets.resize(ghost0 + 1 + ghosts_before.back());
    L.ghost_terms.resize(term0 + terms_before.back());
    L.ghost_weights.resize(term0 + terms_before.back());
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t b = 0; b < by_block.size(); ++b) {
        PmlLines& part = by_block[b];
        const auto first = static_cast<int32_t>(ghost0 + ghosts_before[b]);
        for (size_t k = 0; k < part.lines.size(); ++k) {
            const size_t i = b * kFacesPerBlock + k;
            for (int32_t& c : part.pml[k].air)
                rebase(c, first);
            rebase(part.lines[k], first);
            L.pml[i] = part.pml[k];
            L.lines[line0 + i] = part.lines[k];
        }
        const Ghosts& gh = part.ghosts;
        const size_t t = term0 + terms_before[b];
        std::copy(gh.terms.begin(), gh.terms.end(),
                  L.ghost_terms.begin() + static_cast<std::ptrdiff_t>(t));
        std::copy(gh.weights.begin(), gh.weights.end(),
                  L.ghost_weights.begin() + static_cast<std::ptrdiff_t>(t));
        for (size_t e = 0; e < gh.ends.size(); ++e)
            L.ghost_offsets[ghost0 + 1 + ghosts_before[b] + e] =
                static_cast<int32_t>(t) + gh.ends[e];
        part = {};
    }
    for (size_t i = 0; i < pml_faces.size(); ++i) {
        const PmlFace& f = pml_faces[i];
        if (i == 0 || f.axis != pml_faces[i - 1].axis || f.side != pml_faces[i - 1].side)
            L.batches.push_back({line0 + i, line0 + i});
        L.batches.back().end = line0 + i + 1;
    }
    L.pml_cells = L.pml.size() * static_cast<size_t>(L.pml_depth);
    L.ghost_cells = L.ghost_offsets.size() - 1;
    check_cell_indices(p.scene.display_name(), L.field_cells());
    L.pml_ghosts = ghost0;
    // Ghost references (-2 - g) become field indices.
    const auto ghost_base = static_cast<int32_t>(L.air_cells + L.pml_cells);
    auto resolve = [&](int32_t& c) {
        if (c <= -2) c = ghost_base + (-2 - c);
    };
    for (InterfaceLine& line : L.lines)
        for (int j = 0; j < kReach; ++j)
            for (int32_t* c : {&line.far_right[j], &line.far_left[j]})
                resolve(*c);
    for (PmlLine& pl : L.pml)
        for (int32_t& c : pl.air)
            resolve(c);

    L.source = L.flat(p.air.sources.at(source).cell);
    const ListenerCells rc = p.receiver_cells();
    for (size_t i = 0; i < (receiver_gradients ? rc.cells.size() : rc.points); ++i)
        L.receivers.push_back(L.flat(rc.cells[i]));
    if (listener_grid)
        for (const Index3& c : p.listener_cells().cells) {
            // Every air cell lies in a partition; the grid file's rows depend on that.
            const int32_t f = L.flat(c);
            if (f < 0) throw std::logic_error("listener-grid cell outside every partition");
            L.grid_cells.push_back(f);
            L.grid_positions.push_back(g.centre(c));
        }
    return L;
}

}  // namespace ardent::ard
