#include "ardent/preprocess/input_file.h"

namespace ardent {

std::string special_file_kind(const std::filesystem::path& file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status s = fs::status(file, ec);  // stat(2): never opens, so never blocks
    switch (s.type()) {
        case fs::file_type::fifo:
            return "a FIFO (named pipe)";
        case fs::file_type::socket:
            return "a socket";
        case fs::file_type::character:
            return "a character device";
        case fs::file_type::block:
            return "a block device";
        case fs::file_type::regular:
        case fs::file_type::directory:
        case fs::file_type::not_found:
        case fs::file_type::none:
            return {};
        default:
            return "not a regular file";
    }
}

}  // namespace ardent
