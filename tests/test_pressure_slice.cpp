// Solver::pressure_plane() on the CPU backends: each plane cell lands at its (u, v) in the
// documented layout, NaN marks what is not air, and the values are the field the solver holds
// (ARD: read back from its checkpoint stream; FDTD: the receiver sample of the next step).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ard_validation.h"
#include "ardent/solvers/ard_layout.h"

namespace ardent::test {
namespace {

// The in-plane axes of a plane normal to `axis`, in increasing order.
std::pair<int, int> plane_axes(int axis) {
    return {axis == 0 ? 1 : 0, axis == 2 ? 1 : 2};
}

size_t plane_offset(const Grid& g, int axis, Index3 c) {
    const auto [u, v] = plane_axes(axis);
    return static_cast<size_t>(c[static_cast<size_t>(v)]) *
               static_cast<size_t>(g.dims[static_cast<size_t>(u)]) +
           static_cast<size_t>(c[static_cast<size_t>(u)]);
}

// Grid cell of plane offset k.
Index3 plane_cell(const Grid& g, int axis, int index, size_t k) {
    const auto [u, v] = plane_axes(axis);
    const size_t nu = static_cast<size_t>(g.dims[static_cast<size_t>(u)]);
    Index3 c{0, 0, 0};
    c[static_cast<size_t>(axis)] = index;
    c[static_cast<size_t>(u)] = static_cast<int>(k % nu);
    c[static_cast<size_t>(v)] = static_cast<int>(k / nu);
    return c;
}

Preprocessed fdtd_box() {
    Scene scene = parse_scene(R"({"format": "ardent-scene/1", "name": "slice box",
        "geometry": {"box": [1.9, 1.4, 1.1]},
        "materials": {"rigid": {"absorption": 0}, "soft": {"absorption": 0.5}},
        "surfaces": {"floor": "soft", "*": "rigid"},
        "sources": [{"name": "S", "position": [0.41, 0.37, 0.29]}],
        "receivers": [{"name": "R1", "position": [1.3, 0.9, 0.7]}],
        "simulation": {"solver": "fdtd", "device": "cpu", "max_frequency": 300}})",
                              "box.json");
    scene.listener_grid_every = 0;
    return preprocess(scene);
}

validation::BoxSpec ard_box() {
    validation::BoxSpec b;
    b.cells = {14, 11, 9};
    b.f_max = 500;
    b.source = {4, 3, 2};
    b.receivers = {{10, 7, 6}};
    b.absorbing_face = "ceiling";
    b.alpha = 0.4;
    b.max_partition_side = 6;  // several partitions, interfaces crossing every plane
    return b;
}

TEST(PressureSlice, FdtdReadsBackSetPressureInEveryPlaneWithNanOutsideAir) {
    const Preprocessed p = fdtd_box();
    const Grid& g = p.air.grid;
    for (Precision precision : {Precision::Float32, Precision::Float64}) {
        SolverOptions o;
        o.precision = precision;
        o.inject_source = false;
        o.threads = 1;
        auto solver = make_solver(p, o);
        ASSERT_EQ(solver->name().rfind("fdtd-cpu", 0), 0u) << solver->name();
        const Index3 s = p.air.sources[0].cell;
        const std::vector<std::pair<Index3, double>> set = {
            {s, 1.5}, {{s[0] + 3, s[1], s[2]}, -2.25}, {{s[0], s[1] + 2, s[2]}, 0.75}};
        for (const auto& [c, value] : set)
            solver->set_pressure(c, value);
        std::vector<float> plane;
        for (int axis = 0; axis < 3; ++axis) {
            const auto [u, v] = plane_axes(axis);
            const int index = s[static_cast<size_t>(axis)];
            solver->pressure_plane(axis, index, plane);
            ASSERT_EQ(plane.size(), static_cast<size_t>(g.dims[static_cast<size_t>(u)]) *
                                        static_cast<size_t>(g.dims[static_cast<size_t>(v)]));
            size_t nan = 0, nonzero = 0;
            for (size_t k = 0; k < plane.size(); ++k) {
                const bool air = p.air.air[g.index(plane_cell(g, axis, index, k))] != 0;
                EXPECT_EQ(std::isnan(plane[k]), !air) << "axis " << axis << " cell " << k;
                nan += std::isnan(plane[k]) ? 1 : 0;
                nonzero += !std::isnan(plane[k]) && plane[k] != 0 ? 1 : 0;
            }
            EXPECT_GT(nan, 0u);  // the walls' cells around the room
            size_t in_plane = 0;
            for (const auto& [c, value] : set) {
                if (c[static_cast<size_t>(axis)] != index) continue;
                ++in_plane;
                EXPECT_EQ(plane[plane_offset(g, axis, c)], static_cast<float>(value))
                    << "axis " << axis;
            }
            EXPECT_EQ(nonzero, in_plane) << "axis " << axis;
        }
        EXPECT_THROW(solver->pressure_plane(3, 0, plane), std::invalid_argument);
        EXPECT_THROW(solver->pressure_plane(2, g.dims[2], plane), std::invalid_argument);
        EXPECT_THROW(solver->pressure_plane(0, -1, plane), std::invalid_argument);
    }
}

TEST(PressureSlice, FdtdSliceIsWhatTheNextStepSamples) {
    const Preprocessed p = fdtd_box();
    const Grid& g = p.air.grid;
    SolverOptions o;
    o.threads = 1;
    auto solver = make_solver(p, o);
    const Index3 r = p.air.receivers[0].cell;
    std::vector<float> plane;
    for (size_t n : {40, 130, 260}) {
        solver->advance(n - solver->steps_done());
        float here[3];
        for (int axis = 0; axis < 3; ++axis) {
            solver->pressure_plane(axis, r[static_cast<size_t>(axis)], plane);
            here[axis] = plane[plane_offset(g, axis, r)];
        }
        solver->advance(1);  // records the pressure of step n at the receiver
        for (int axis = 0; axis < 3; ++axis) {
            EXPECT_EQ(here[axis], static_cast<float>(solver->receivers()[0][n]))
                << "step " << n << " axis " << axis;
            EXPECT_NE(here[axis], 0.0f);
        }
    }
}

// The ARD checkpoint stream (ard_cpu.cpp's save_state): magic, header, step, peak energy, both
// mode levels, then the field over air and PML cells.
template <typename Real>
std::vector<Real> checkpoint_field(const Solver& solver, const ard::Layout& L) {
    std::stringstream state;
    solver.save_state(state);
    const std::string bytes = state.str();
    // Magic, the 8-word header, step, peak energy, both mode levels, then the field.
    const size_t offset = 8 + 8 * 8 + 8 + 8 + 2 * L.air_cells * sizeof(Real);
    const size_t n = L.air_cells + L.pml_cells;
    EXPECT_GE(bytes.size(), offset + n * sizeof(Real));
    std::vector<Real> field(n);
    std::memcpy(field.data(), bytes.data() + offset, n * sizeof(Real));
    return field;
}

template <typename Real>
void ard_slice_is_the_field(Precision precision) {
    const Preprocessed p = validation::build(ard_box());
    ASSERT_GT(p.decomposition.partitions.size(), 4u);
    const ard::Layout L = ard::build_layout(p, 0, false);
    const Grid& g = p.air.grid;
    SolverOptions o;
    o.precision = precision;
    o.listener_grid = false;
    o.threads = 1;
    auto solver = make_solver(p, o);
    const Index3 s = p.air.sources[0].cell;
    std::vector<float> plane;
    for (size_t n : {25, 90}) {
        solver->advance(n - solver->steps_done());
        const std::vector<Real> field = checkpoint_field<Real>(*solver, L);
        for (int axis = 0; axis < 3; ++axis) {
            const int index = s[static_cast<size_t>(axis)];
            solver->pressure_plane(axis, index, plane);
            size_t checked = 0;
            for (size_t k = 0; k < plane.size(); ++k) {
                const int32_t f = L.flat(plane_cell(g, axis, index, k));
                if (f < 0) {
                    EXPECT_TRUE(std::isnan(plane[k]));
                    continue;
                }
                ++checked;
                EXPECT_EQ(plane[k], static_cast<float>(field[static_cast<size_t>(f)]))
                    << "axis " << axis << " step " << n;
            }
            EXPECT_GT(checked, 20u);
        }
        // Every plane along z together is the whole field field_energy() sums.
        double sum = 0;
        for (int k = 0; k < g.dims[2]; ++k) {
            solver->pressure_plane(2, k, plane);
            for (float x : plane)
                if (!std::isnan(x)) sum += static_cast<double>(x) * static_cast<double>(x);
        }
        EXPECT_NEAR(sum / solver->field_energy(), 1.0, 1e-6) << "step " << n;
    }
}

TEST(PressureSlice, ArdSliceIsTheFieldTheSolverHolds) {
    ard_slice_is_the_field<float>(Precision::Float32);
    ard_slice_is_the_field<double>(Precision::Float64);
}

// ARD exposes q = phi(A) p (ard_physics.h): a single set cell reads back as the peak of its plane,
// at its (u, v), slightly lowered by the filter.
TEST(PressureSlice, ArdSetPressurePeaksAtItsCell) {
    const Preprocessed p = validation::build(ard_box());
    const Grid& g = p.air.grid;
    SolverOptions o;
    o.inject_source = false;
    o.listener_grid = false;
    o.threads = 1;
    auto solver = make_solver(p, o);
    const Index3 c{6, 5, 4};
    solver->set_pressure(c, 2.0);
    std::vector<float> plane;
    for (int axis = 0; axis < 3; ++axis) {
        solver->pressure_plane(axis, c[static_cast<size_t>(axis)], plane);
        size_t peak = 0;
        float largest = -1;
        for (size_t k = 0; k < plane.size(); ++k)
            if (!std::isnan(plane[k]) && std::abs(plane[k]) > largest) {
                largest = std::abs(plane[k]);
                peak = k;
            }
        EXPECT_EQ(peak, plane_offset(g, axis, c)) << "axis " << axis;
        EXPECT_GT(plane[peak], 1.0f);
        EXPECT_LE(plane[peak], 2.0f);
    }
}

}  // namespace
}  // namespace ardent::test
