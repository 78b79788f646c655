// Host-side helpers both CUDA backends (ARD and FDTD) share: a device array that counts its bytes
// towards the solver's memory_bytes(), the launch size of one-thread-per-item kernels, the slot
// count of the device ring buffer that collects recorded samples, and the check that refuses a
// scene whose state does not fit in free GPU memory (exit code 3, with the largest max_frequency
// that would fit).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/preprocess/preprocess.h"
#include "cuda_check.h"

namespace ardent::ard::cuda {

template <typename T>
class DeviceArray {
  public:
    DeviceArray() = default;
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    ~DeviceArray() {
        if (p_) cudaFree(p_);
    }
    // Replaces any earlier allocation (zeroed).
    void allocate(size_t n, size_t& total) {
        if (p_) cudaFree(p_);
        p_ = nullptr;
        n_ = n;
        const size_t bytes = std::max<size_t>(n, 1) * sizeof(T);
        ARDENT_CUDA_CHECK(cudaMalloc(&p_, bytes));
        ARDENT_CUDA_CHECK(cudaMemset(p_, 0, bytes));
        total += bytes;
    }
    void upload(const std::vector<T>& v, size_t& total) {
        allocate(v.size(), total);
        if (!v.empty())
            ARDENT_CUDA_CHECK(
                cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    std::vector<T> download() const {
        std::vector<T> v(n_);
        if (n_) ARDENT_CUDA_CHECK(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return v;
    }
    void assign(const std::vector<T>& v) {
        if (v.size() != n_) throw InputError("the checkpoint does not match this solver");
        if (n_) ARDENT_CUDA_CHECK(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    T* get() const { return p_; }
    size_t size() const { return n_; }

  private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

// Blocks of `block` threads for n items (at least one block).
inline unsigned blocks_for(long long n, int block) {
    return static_cast<unsigned>(std::max<long long>(1, (n + block - 1) / block));
}

// Ring slots for the recorded samples: up to 64 MiB, at most 512 steps between copies.
inline int ring_slots(size_t nsamp, size_t real_size) {
    return static_cast<int>(
        std::clamp<size_t>((size_t{64} << 20) / (std::max<size_t>(nsamp, 1) * real_size), 1, 512));
}

// Throws a ResourceError naming `solver` when `need` bytes do not fit in the free GPU memory.
// The GPU this process uses: `gpu` modulo the devices present (a rank's index on its node in a
// distributed run); -1 keeps CUDA's current device.
inline void use_device(int gpu) {
    if (gpu < 0) return;
    int count = 0;
    ARDENT_CUDA_CHECK(cudaGetDeviceCount(&count));
    ARDENT_CUDA_CHECK(cudaSetDevice(gpu % std::max(count, 1)));
}

// `ranks`: the ranks of a distributed ARD run (0: a solver that cannot be distributed); the
// message then also says over how many GPUs the run would fit.
inline void check_device_memory(const Preprocessed& p, size_t need, const char* solver,
                                int ranks = 0) {
    size_t free = 0, total = 0;
    ARDENT_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    if (static_cast<double>(need) <= 0.95 * static_cast<double>(free)) return;
    std::string spread;
    if (ranks > 0) {
        // A rank's part shrinks about as 1/ranks; its halo adds some (up to 10 % measured).
        const int fit =
            std::max(ranks + 1, static_cast<int>(std::ceil(ranks * 1.1 * static_cast<double>(need) /
                                                           (0.9 * static_cast<double>(free)))));
        spread = ", or spread it over at least " + std::to_string(fit) + " GPUs (mpirun -n " +
                 std::to_string(fit) + " ardent simulate ... --distributed)";
    }
    // The fields grow as f_max^3 (cells): the cube root of the ratio bounds the frequency.
    const double f = p.scene.simulation.max_frequency;
    const double fit = f * std::cbrt(0.9 * static_cast<double>(free) / static_cast<double>(need));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", std::floor(fit * 0.98));
    throw ResourceError(p.scene.display_name() + ": the CUDA " + solver + " solver needs about " +
                        format_bytes(static_cast<double>(need)) + " of GPU memory and " +
                        format_bytes(static_cast<double>(free)) +
                        " is free. Lower the maximum frequency to at most " + buf +
                        " Hz (--max-frequency)" + spread + ", or use --device cpu.");
}

}  // namespace ardent::ard::cuda
