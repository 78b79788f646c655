// Error types shared by every Ardent library and front end. An InputError is the user's to fix (a
// bad scene, mesh or argument; the CLI exits with 2); a ResourceError means the machine lacks what
// the job needs (memory, a GPU; exit 3). Messages always name the file, key or object at fault.
#pragma once

#include <stdexcept>
#include <string>

namespace ardent {

class InputError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class ResourceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace ardent
