// Numbers in messages: fixed decimals in the everyday range, and three significant digits with
// an exponent beyond it, so that a position of 1e308 reads "1e+308" in a message instead of 309
// digits cut off mid-number by the formatting buffer.
#pragma once

#include <cstddef>
#include <string>

namespace ardent {

// `v` with `decimals` decimals when |v| < 1e6 (e.g. "1.50"), else as "%.3g" (e.g. "1.23e+07",
// "1e+308"); "nan" and "inf" as they are.
std::string number_text(double v, int decimals);

// "(x, y, z)", each as number_text(_, decimals).
std::string point_text(double x, double y, double z, int decimals);

// Text from the user as a message shows it: its first `keep` bytes (not cutting a UTF-8
// character), then "…" when there was more; a 5000-digit number was echoed whole.
std::string cut_text(const std::string& text, size_t keep = 20);

}  // namespace ardent
