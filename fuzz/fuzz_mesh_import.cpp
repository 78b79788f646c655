// The mesh importer on any file of the formats Ardent accepts: the first byte of the input picks
// the extension (which decides the importer), the rest is the file. It either returns a mesh or
// throws InputError.
#include <array>
#include <cstddef>
#include <cstdint>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/mesh_import.h"
#include "input_file.h"

namespace {
// The editor's model filter, plus OFF (Object File Format), which Assimp also reads.
constexpr std::array<const char*, 13> kExtensions = {".obj",   ".stl", ".ply", ".off", ".gltf",
                                                     ".glb",   ".dae", ".fbx", ".3ds", ".ac",
                                                     ".blend", ".x3d", ".dxf"};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const ardent::fuzz::InputFile file(data + 1, size - 1,
                                       kExtensions[data[0] % kExtensions.size()]);
    try {
        (void)ardent::import_mesh(file.path(), 1.0, ardent::MeshIsolation::InProcess);
    } catch (const ardent::InputError&) {
    }
    return 0;
}
