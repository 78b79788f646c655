#include "ardent/preprocess/fftw_planner.h"

namespace ardent {

std::mutex& fftw_planner_mutex() {
    static std::mutex m;
    return m;
}

}  // namespace ardent
