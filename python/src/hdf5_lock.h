// HDF5 builds differ: Debian 12's is thread-safe (H5is_library_threadsafe says so, and its
// libhdf5.settings "Threadsafety: yes"), but a build without that option lets one thread at a
// time call it, and a wheel or conda package may link one. A simulate() writing a grid and a Grid
// read from another Python thread would then meet inside it. Every
// binding that reaches HDF5 holds this lock, taken with the GIL released (and kept released while
// HDF5 runs), so that a thread waiting for it never blocks the run's progress reports, which need
// the GIL. It is recursive: a progress callback of a simulate() that holds it may read a Grid in
// the same thread (the run calls back between its HDF5 writes, never inside one).
#pragma once

#include <mutex>

#include <pybind11/pybind11.h>

namespace ardent::python {

std::recursive_mutex& hdf5_mutex();

class Hdf5Lock {
  public:
    Hdf5Lock() : lock_(hdf5_mutex()) {}

  private:
    pybind11::gil_scoped_release release_;  // first released, last taken back
    std::lock_guard<std::recursive_mutex> lock_;
};

}  // namespace ardent::python
