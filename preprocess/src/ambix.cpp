#include "ardent/preprocess/ambix.h"

#include <cmath>
#include <stdexcept>

namespace ardent {

int ambisonic_order_of_channel(size_t acn) {
    int n = 0;
    while (ambisonic_channels(n) <= acn)
        ++n;
    return n;
}

double ambix_gain(size_t acn, Vec3 u) {
    const double x = u.x, y = u.y, z = u.z;
    const double s3 = std::sqrt(3.0), s15 = std::sqrt(15.0), s58 = std::sqrt(5.0 / 8.0),
                 s38 = std::sqrt(3.0 / 8.0);
    switch (acn) {
        case 0:
            return 1;
        case 1:
            return y;
        case 2:
            return z;
        case 3:
            return x;
        case 4:
            return s3 * x * y;
        case 5:
            return s3 * y * z;
        case 6:
            return 0.5 * (3 * z * z - 1);
        case 7:
            return s3 * x * z;
        case 8:
            return 0.5 * s3 * (x * x - y * y);
        case 9:
            return s58 * y * (3 * x * x - y * y);
        case 10:
            return s15 * x * y * z;
        case 11:
            return s38 * y * (5 * z * z - 1);
        case 12:
            return 0.5 * z * (5 * z * z - 3);
        case 13:
            return s38 * x * (5 * z * z - 1);
        case 14:
            return 0.5 * s15 * z * (x * x - y * y);
        case 15:
            return s58 * x * (x * x - 3 * y * y);
        default:
            throw std::out_of_range("ambix_gain: ACN channel above third order");
    }
}

}  // namespace ardent
