// Option checks shared by the subcommands. CLI11's PositiveNumber lets "nan" through (every
// comparison with NaN is false), and an override that is NaN was then silently ignored; these
// accept only finite numbers, written in decimal. Every numeric option carries one of them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include "ardent/preprocess/number_text.h"

namespace ardent::cli {

// What of an argument a message shows: its first 20 characters, then "…" (a 5000-digit number was
// echoed whole).
inline std::string shown(const std::string& text) {
    return cut_text(text);
}

// Plain decimal notation: an optional sign, digits with an optional decimal point, an optional
// decimal exponent ("300", "-1.5", "2e3"). CLI11 and std::stod also read "0x12C" as 300, "0b11",
// "0o17", hexadecimal floats, "nan" and "inf": a number on the command line means what it says in
// decimal or is refused.
inline bool is_decimal(const std::string& text) {
    size_t i = 0;
    const auto digits = [&] {
        const size_t from = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9')
            ++i;
        return i - from;
    };
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    size_t mantissa = digits();
    if (i < text.size() && text[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0) return false;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if (digits() == 0) return false;
    }
    return i == text.size();
}

// The whole of `text` as a number into `v`; false when it is not one in decimal notation
// (is_decimal). A number too large for a double parses as infinity.
inline bool parse_number(const std::string& text, double& v) {
    if (!is_decimal(text)) return false;
    v = std::strtod(text.c_str(), nullptr);
    return true;
}

// Any decimal number, for options that CLI11 converts and range-checks itself.
inline CLI::Validator decimal_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (!is_decimal(text)) return "not a decimal number: " + shown(text);
            return {};
        },
        "NUMBER");
}

// `text` as a whole decimal number (an optional sign and digits), its leading zeros dropped:
// CLI11 reads an integer in any base C does, so "010" was 8 and "0x10" 16.
inline bool whole_decimal(std::string& text, double& v) {
    const size_t sign = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
    if (text.size() == sign || text.find_first_not_of("0123456789", sign) != std::string::npos)
        return false;
    const size_t first = std::min(text.find_first_not_of('0', sign), text.size() - 1);
    text.erase(sign, first - sign);
    v = std::strtod(text.c_str(), nullptr);
    return true;
}

// A whole number from `least` to `most` (no upper bound when `most` is the largest long long), in
// decimal, the range said as such (CLI11's PositiveNumber answered 0 with a 309-digit range).
inline CLI::Validator whole_number(long long least,
                                   long long most = std::numeric_limits<long long>::max()) {
    return CLI::Validator(
        [least, most](std::string& text) -> std::string {
            const std::string given = shown(text);
            double v = 0;
            if (!whole_decimal(text, v) || v < static_cast<double>(least) ||
                v > static_cast<double>(most))
                return "expected a whole number " +
                       (most == std::numeric_limits<long long>::max()
                            ? "of at least " + std::to_string(least)
                            : "from " + std::to_string(least) + " to " + std::to_string(most)) +
                       ", got " + given;
            return {};
        },
        "INTEGER");
}

// A finite number > 0 (and at most `most`, when given).
inline CLI::Validator finite_positive(double most = HUGE_VAL) {
    return CLI::Validator(
        [most](std::string& text) -> std::string {
            double v = 0;
            if (!parse_number(text, v)) return "not a decimal number: " + shown(text);
            if (!std::isfinite(v) || v <= 0)
                return "must be a positive, finite number, got " + shown(text);
            if (v > most)
                return "must be at most " + CLI::detail::to_string(most) + ", got " + shown(text);
            return {};
        },
        "POSITIVE");
}

// Any finite number (a coordinate in metres).
inline CLI::Validator finite_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            if (!parse_number(text, v)) return "not a decimal number: " + shown(text);
            if (!std::isfinite(v)) return "not a finite number: " + shown(text);
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
            const std::string given = shown(text);
            double v = 0;
            if (!whole_decimal(text, v) || v < 0 || v > kMaxThreads)
                return "expected 0 (every core) or 1 to " + std::to_string(kMaxThreads) + ", got " +
                       given;
            return {};
        },
        "THREADS");
}

}  // namespace ardent::cli
