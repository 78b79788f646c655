// The fuzz input as a file, for the readers that take a path (meshes, audio, listener grids, HRTF
// sets): written once per input under the temporary directory with the extension that selects
// the reader's format, and removed again when the input is done. One file per process, so
// parallel fuzzing jobs (-jobs=N) never share one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <unistd.h>

namespace ardent::fuzz {

class InputFile {
  public:
    InputFile(const uint8_t* data, size_t size, const std::string& extension)
        : path_(std::filesystem::temp_directory_path() /
                ("ardent-fuzz-" + std::to_string(::getpid()) + extension)) {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    ~InputFile() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

}  // namespace ardent::fuzz
