// The rows of the results panel's ISO 3382-1 table and the bands' names, shared by the table, its
// CSV export and the comparison with another run (results_compare.cpp).
#pragma once

#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include <QString>

#include "ardent/auralize/analysis.h"

namespace ardent::editor {

// A row of the ISO 3382-1 table: its label with the unit, how a band's value is read, how many
// decimals the table shows (as `ardent analyze` prints them), the display scale, and for the
// decay times whether the band met ISO 3382-1's dynamic range.
struct Parameter {
    const char* name;
    std::function<std::optional<double>(const auralize::BandResult&)> value;
    int decimals;
    double scale;
    std::function<bool(const auralize::BandResult&)> reliable;  // empty: always
};

inline const std::vector<Parameter>& parameters() {
    using B = auralize::BandResult;
    static const std::vector<Parameter> p = {
        {"EDT (s)", [](const B& b) { return b.edt_s; }, 3, 1,
         [](const B& b) { return b.edt_reliable; }},
        {"T20 (s)", [](const B& b) { return b.t20_s; }, 3, 1,
         [](const B& b) { return b.t20_reliable; }},
        {"T30 (s)", [](const B& b) { return b.t30_s; }, 3, 1,
         [](const B& b) { return b.t30_reliable; }},
        {"C50 (dB)", [](const B& b) { return b.c50_db; }, 2, 1, {}},
        {"C80 (dB)", [](const B& b) { return b.c80_db; }, 2, 1, {}},
        {"D50 (ratio)", [](const B& b) { return b.d50; }, 3, 1, {}},
        {"Ts (ms)", [](const B& b) { return b.ts_s; }, 1, 1000, {}},
        {"Noise floor (dB re peak)",
         [](const B& b) {
             return std::isfinite(b.noise_floor_db) ? std::optional(b.noise_floor_db)
                                                    : std::nullopt;
         },
         1,
         1,
         {}},
        {"Truncation (s)", [](const B& b) { return std::optional(b.truncation_s); }, 3, 1, {}},
    };
    return p;
}

// A band's name as the table's header and the decay chart's legend give it ("125 Hz", "2 kHz").
inline QString band_name(double hz) {
    return hz >= 1000 ? QStringLiteral("%1 kHz").arg(hz / 1000) : QStringLiteral("%1 Hz").arg(hz);
}

}  // namespace ardent::editor
