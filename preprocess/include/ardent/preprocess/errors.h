// Error types shared by every Ardent library and front end. An InputError is the user's to fix (a
// bad scene, mesh or argument; the CLI exits with 2); a ResourceError means the machine lacks what
// the job needs (memory, a GPU; exit 3). Messages always name the file, key or object at fault;
// an InputError about a scene also carries them apart (ErrorSubject), so that a front end that
// is not a terminal (the Python module's exceptions) can hand them over without parsing text.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace ardent {

// `text` with its control characters written as \u00XX, as in the JSON they came from: a NUL in a
// name cut the message short where it was printed, and an escape sequence would drive the
// terminal. Line breaks and tabs are kept when `keep_lines` (a message of several lines).
inline std::string printable_text(std::string_view text, bool keep_lines = false) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && !(keep_lines && (c == '\n' || c == '\t'))) || u == 0x7f) {
            char code[16];
            std::snprintf(code, sizeof code, "\\u%04x", u);
            out += code;
        } else {
            out += c;
        }
    }
    return out;
}

// What an InputError is about, where known: the file, the key path within a scene
// ("simulation.max_frequency", "sources[1].position") and the named object ("S2"). Empty: not
// known or not applicable.
struct ErrorSubject {
    std::string file, key, object;
};

class InputError : public std::runtime_error {
  public:
    // The message is kept printable (printable_text): it quotes names from the user's files.
    explicit InputError(const std::string& message)
        : std::runtime_error(printable_text(message, true)) {}
    explicit InputError(const char* message) : InputError(std::string(message)) {}
    // `message` is the whole text, as the CLI prints it (it names the subject too).
    InputError(const std::string& message, ErrorSubject subject)
        : std::runtime_error(printable_text(message, true)), subject_(std::move(subject)) {}
    const ErrorSubject& subject() const { return subject_; }

  private:
    ErrorSubject subject_;
};

class ResourceError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace ardent
