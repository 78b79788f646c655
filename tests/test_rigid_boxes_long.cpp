// The long run of the rigid-box check (issue 19, tests/support/rigid_box.h): seeds 1-20 for ARD
// and FDTD against image sources through the WAVs. Each ARD seed is also measured with the
// paper's power-of-two partition sides (reported, not judged: the bars are for the default), and
// the table and the worst seed's error over time go to $ARDENT_VALIDATION_OUT for
// docs/validation.md.
#include <gtest/gtest.h>

#include "rigid_box.h"

namespace ardent::test {
namespace {

void run_seeds(const std::string& solver) {
    ScratchDir dir;
    const bool ard = solver == "ard";
    std::vector<std::vector<double>> table(10);
    RigidBoxError worst, worst_pow2;
    for (std::uint32_t seed = 1; seed <= 20; ++seed) {
        const RigidBox b = draw_rigid_box(seed, solver);
        const RigidBoxError e = expect_rigid_box_within_bars(b, dir);
        if (!e.ran) continue;
        RigidBoxError p;
        if (ard) {
            RigidBox pow2 = b;
            pow2.extra_simulation = R"(, "partition_sides": "power_of_two")";
            p = rigid_box_error(pow2, dir);
        }
        for (auto [column, value] : {std::pair{0, double(seed)},
                                     {1, double(e.partitions)},
                                     {2, double(e.thinnest)},
                                     {3, e.err_025},
                                     {4, e.err_05},
                                     {5, double(p.partitions)},
                                     {6, p.err_025},
                                     {7, p.err_05},
                                     {8, e.low_025},
                                     {9, e.low_05}})
            table[static_cast<size_t>(column)].push_back(value);
        if (e.err_05 > worst.err_05) {
            worst = e;
            worst_pow2 = p;
        }
    }
    write_validation_csv(
        "rigid_boxes_" + solver + ".csv",
        {"seed", "partitions", "thinnest", "error_025", "error_05", "pow2_partitions",
         "pow2_error_025", "pow2_error_05", "low_error_025", "low_error_05"},
        table);
    std::vector<double> t, smooth, power;
    for (size_t i = 0; i < worst.growth.size(); ++i) {
        t.push_back(worst.growth[i].first);
        smooth.push_back(worst.growth[i].second);
        power.push_back(i < worst_pow2.growth.size() ? worst_pow2.growth[i].second : -1.0);
    }
    write_validation_csv("rigid_boxes_" + solver + "_worst_seed.csv",
                         {"time_s", "error", "error_power_of_two_sides"}, {t, smooth, power});
}

TEST(RigidBoxesLong, ArdSeeds1To20) {
    run_seeds("ard");
}

TEST(RigidBoxesLong, FdtdSeeds1To20) {
    run_seeds("fdtd");
}

}  // namespace
}  // namespace ardent::test
