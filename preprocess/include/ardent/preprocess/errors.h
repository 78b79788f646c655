// Error types shared by every Ardent library and front end. An InputError is the user's to fix (a
// bad scene, mesh or argument; the CLI exits with 2); a ResourceError means the machine lacks what
// the job needs (memory, a GPU; exit 3). Messages always name the file, key or object at fault;
// an InputError about a scene also carries them apart (ErrorSubject), so that a front end that
// is not a terminal (the Python module's exceptions) can hand them over without parsing text.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace ardent {

// What an InputError is about, where known: the file, the key path within a scene
// ("simulation.max_frequency", "sources[1].position") and the named object ("S2"). Empty: not
// known or not applicable.
struct ErrorSubject {
    std::string file, key, object;
};

class InputError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
    // `message` is the whole text, as the CLI prints it (it names the subject too).
    InputError(const std::string& message, ErrorSubject subject)
        : std::runtime_error(message), subject_(std::move(subject)) {}
    const ErrorSubject& subject() const { return subject_; }

  private:
    ErrorSubject subject_;
};

class ResourceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace ardent
