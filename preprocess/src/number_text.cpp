#include "ardent/preprocess/number_text.h"

#include <cmath>
#include <cstdio>

namespace ardent {

std::string number_text(double v, int decimals) {
    char buf[64];
    if (std::fabs(v) < 1e6 || !std::isfinite(v))
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    else
        std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string point_text(double x, double y, double z, int decimals) {
    return "(" + number_text(x, decimals) + ", " + number_text(y, decimals) + ", " +
           number_text(z, decimals) + ")";
}

std::string cut_text(const std::string& text, size_t keep) {
    if (text.size() <= keep) return text;
    size_t cut = keep;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return text.substr(0, cut) + "…";
}

}  // namespace ardent
