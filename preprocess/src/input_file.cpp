#include "ardent/preprocess/input_file.h"

#include <system_error>

namespace ardent {

std::string file_type_text(std::filesystem::file_type type) {
    namespace fs = std::filesystem;
    switch (type) {
        case fs::file_type::fifo:
            return "a FIFO (named pipe)";
        case fs::file_type::socket:
            return "a socket";
        case fs::file_type::character:
            return "a character device";
        case fs::file_type::block:
            return "a block device";
        case fs::file_type::directory:
            return "a folder";
        case fs::file_type::symlink:
            return "a symbolic link";
        case fs::file_type::regular:
            return "a file";
        default:
            return "not a regular file";
    }
}

std::string special_file_kind(const std::filesystem::path& file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status s = fs::status(file, ec);  // stat(2): never opens, so never blocks
    switch (s.type()) {
        case fs::file_type::fifo:
        case fs::file_type::socket:
        case fs::file_type::character:
        case fs::file_type::block:
            return file_type_text(s.type());
        case fs::file_type::regular:
        case fs::file_type::directory:
        case fs::file_type::not_found:
            return {};
        case fs::file_type::none:
            // stat(2) failed other than for a missing file: a link loop was called "not found".
            if (ec == std::errc::too_many_symbolic_link_levels)
                return "a symbolic link loop (too many levels of symbolic links)";
            if (ec == std::errc::permission_denied)
                return "out of reach (permission denied on a folder in its path)";
            if (ec == std::errc::filename_too_long) return "a path too long for the system";
            return ec ? "not readable (" + ec.message() + ")" : std::string();
        default:
            return "not a regular file";
    }
}

}  // namespace ardent
