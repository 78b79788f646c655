// The report of `ardent info`: grid, cell counts, volumes, decomposition and PML statistics,
// memory and run-time estimates, as one JSON object (keys documented in docs/info.md) and as text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/preprocess.h"

namespace ardent {

nlohmann::ordered_json info_json(const Preprocessed& p);
std::string info_text(const Preprocessed& p);

}  // namespace ardent
