// What a path given as an input file is, checked before the file is opened. Opening a FIFO (named
// pipe) waits until something writes to it, so a scene whose geometry.mesh named one hung
// `ardent` for ever; a device such as /dev/zero never ends. Every reader of a file a user names
// (scene, mesh, audio, listener grid, HRTF set) asks this first and refuses such a path with a
// message that names it and says what it is.
#pragma once

#include <filesystem>
#include <string>

namespace ardent {

// What `file` is when it exists but is neither a regular file nor a directory: "a FIFO (named
// pipe)", "a socket", "a character device", "a block device" or "not a regular file"; or, when
// the path cannot be followed, "a symbolic link loop (...)", "out of reach (permission denied
// ...)" and the like. Empty for a regular file, a directory or a missing path (each reader words
// those itself), and for a link to a regular file. Readers ask this before they test whether the
// file exists, which such a path fails.
std::string special_file_kind(const std::filesystem::path& file);

// A file type in words, for messages: "a FIFO (named pipe)", "a character device", "a folder",
// "a symbolic link", "a file", ... (safe_output.h names what is in an output's way with it).
std::string file_type_text(std::filesystem::file_type type);

}  // namespace ardent
