// Raw binary reads and writes of checkpoint streams, shared by every backend's save_state() and
// load_state(). A short read is a truncated checkpoint: InputError, as for any bad input file.
#pragma once

#include <cstddef>
#include <istream>
#include <ostream>

#include "ardent/preprocess/errors.h"

namespace ardent::checkpoint {

template <typename T>
void write_array(std::ostream& out, const T* v, size_t n) {
    out.write(reinterpret_cast<const char*>(v), static_cast<std::streamsize>(n * sizeof(T)));
}

template <typename T>
void write_pod(std::ostream& out, const T& v) {
    write_array(out, &v, 1);
}

template <typename T>
void read_array(std::istream& in, T* v, size_t n) {
    in.read(reinterpret_cast<char*>(v), static_cast<std::streamsize>(n * sizeof(T)));
    if (!in) throw InputError("the checkpoint is truncated");
}

template <typename T>
T read_pod(std::istream& in) {
    T v{};
    read_array(in, &v, 1);
    return v;
}

}  // namespace ardent::checkpoint
