// Error checks for CUDA runtime and cuFFT calls in the CUDA backend: a failed call becomes a
// SolverError naming the call and the source line, so a device fault surfaces as a run error
// with a readable message instead of garbage results.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <string>

#include "ardent/solvers/solver.h"

namespace ardent::ard::cuda {

[[noreturn]] inline void fail(const char* what, const std::string& detail, const char* file,
                              int line) {
    throw SolverError(std::string("CUDA backend: ") + what + " failed (" + detail + ") at " + file +
                      ":" + std::to_string(line));
}

inline void check(cudaError_t e, const char* what, const char* file, int line) {
    if (e != cudaSuccess) fail(what, cudaGetErrorString(e), file, line);
}

inline void check(cufftResult e, const char* what, const char* file, int line) {
    if (e != CUFFT_SUCCESS)
        fail(what, "cuFFT status " + std::to_string(static_cast<int>(e)), file, line);
}

}  // namespace ardent::ard::cuda

#define ARDENT_CUDA_CHECK(call) ::ardent::ard::cuda::check((call), #call, __FILE__, __LINE__)
