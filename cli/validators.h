// Option checks shared by the subcommands. CLI11's PositiveNumber lets "nan" through (every
// comparison with NaN is false), and an override that is NaN was then silently ignored; these
// accept only finite numbers.
#pragma once

#include <cmath>
#include <string>

#include <CLI/CLI.hpp>

namespace ardent::cli {

// The whole of `text` as a number into `v`; false when it is not one (NaN and infinities parse).
inline bool parse_number(const std::string& text, double& v) {
    size_t used = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        return false;
    }
    return used == text.size();
}

// A finite number > 0 (and at most `most`, when given).
inline CLI::Validator finite_positive(double most = HUGE_VAL) {
    return CLI::Validator(
        [most](std::string& text) -> std::string {
            double v = 0;
            if (!parse_number(text, v)) return "not a number: " + text;
            if (!std::isfinite(v) || v <= 0)
                return "must be a positive, finite number, got " + text;
            if (v > most)
                return "must be at most " + CLI::detail::to_string(most) + ", got " + text;
            return {};
        },
        "POSITIVE");
}

// Any finite number (a coordinate in metres).
inline CLI::Validator finite_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            if (!parse_number(text, v)) return "not a number: " + text;
            if (!std::isfinite(v)) return "not a finite number: " + text;
            return {};
        },
        "NUMBER");
}

// Worker threads: 0 (every core) or 1 to kMaxThreads. 100 000 asked for made the thread start
// fail mid-run (SIGABRT, with the run's temporary folder left behind).
inline constexpr int kMaxThreads = 1024;
inline CLI::Validator thread_count() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            int v = 0;
            size_t used = 0;
            try {
                v = std::stoi(text, &used);
            } catch (const std::exception&) {
                return "expected 0 (every core) or 1 to " + std::to_string(kMaxThreads) + ", got " +
                       text;
            }
            if (used != text.size() || v < 0 || v > kMaxThreads)
                return "expected 0 (every core) or 1 to " + std::to_string(kMaxThreads) + ", got " +
                       text;
            return {};
        },
        "THREADS");
}

}  // namespace ardent::cli
