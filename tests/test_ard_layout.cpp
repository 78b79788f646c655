// ARD's layout (ard_layout.h): the bound on its 32-bit cell numbering, which a grid too large for
// it must meet with a message instead of wrapped indices (no test machine holds such a grid, so
// the check is called with the counts themselves).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "ardent/preprocess/errors.h"
#include "ardent/solvers/ard_layout.h"

namespace ardent::ard {
namespace {

TEST(ArdLayout, CellCountsUpToTheInt32LimitPass) {
    constexpr auto most = static_cast<size_t>(std::numeric_limits<int32_t>::max());
    EXPECT_NO_THROW(check_cell_indices("hall.json", 0));
    EXPECT_NO_THROW(check_cell_indices("hall.json", 24'300'000));
    EXPECT_NO_THROW(check_cell_indices("hall.json", most));
}

TEST(ArdLayout, ACountBeyondTheInt32LimitNamesTheSceneAndTheFix) {
    constexpr auto most = static_cast<size_t>(std::numeric_limits<int32_t>::max());
    for (const size_t cells : {most + 1, size_t{3'000'000'000}}) {
        try {
            check_cell_indices("hall.json", cells);
            FAIL() << cells << " cells were accepted";
        } catch (const ResourceError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("hall.json"), std::string::npos) << what;
            EXPECT_NE(what.find(std::to_string(cells)), std::string::npos) << what;
            EXPECT_NE(what.find("simulation.max_frequency"), std::string::npos) << what;
        }
    }
}

}  // namespace
}  // namespace ardent::ard
