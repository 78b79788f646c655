#include <gtest/gtest.h>

#include "test_support.h"

TEST(Smoke, InfoOnABoxScene) {
    ardent::test::ScratchDir dir;
    dir.write("box.json", ardent::test::box_scene_json());
    auto r = ardent::test::run_ardent("info box.json --json", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\"air_cells\""), std::string::npos);
}
