// The scene reader on any text: it either returns a scene or throws InputError; anything else (a
// crash, a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        (void)ardent::parse_scene(text, "fuzz.json");
    } catch (const ardent::InputError&) {
    }
    return 0;
}
