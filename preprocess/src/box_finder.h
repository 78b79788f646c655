// The partitions of the rectangular decomposition (decomposition.h): boxes of free air claimed
// greedily, largest first, with sides the PartitionSides allow and no side above max_side. The
// search runs on all cores and gives the same boxes on any number of threads.
#pragma once

#include <vector>

#include "ardent/preprocess/decomposition.h"

namespace ardent {

std::vector<Partition> find_boxes(const AirModel& air, int max_side, PartitionSides sides);

}  // namespace ardent
