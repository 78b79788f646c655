// Did-you-mean messages for a mistyped subcommand or long option. CLI11 2.1 answers
// `ardent simulat x.json` with "A subcommand is required" and `--max-frequncy` with "arguments were
// not expected"; neither says what was meant. main() asks here once parsing failed, and prints the
// answer instead of CLI11's when there is one.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace ardent::cli {

// For a command line that `app` rejected: "unknown command 'simulat'; did you mean 'simulate'?" or
// "unknown option '--max-frequncy' of 'ardent simulate'; did you mean '--max-frequency'?" (listing
// the choices when none is near), or "" when the failure is of another kind and CLI11's fits.
std::string usage_suggestion(const CLI::App& app, int argc, const char* const* argv);

}  // namespace ardent::cli
