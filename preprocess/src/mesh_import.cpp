#include "ardent/preprocess/mesh_import.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <type_traits>

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/input_file.h"
#include "ardent/preprocess/isolated_call.h"

namespace ardent {
namespace {

void collect(const aiScene* s, const aiNode* node, const aiMatrix4x4& parent, double scale,
             TriangleMesh& out, std::map<std::pair<std::string, std::string>, uint32_t>& groups) {
    const aiMatrix4x4 m = parent * node->mTransformation;
    for (unsigned k = 0; k < node->mNumMeshes; ++k) {
        const aiMesh* mesh = s->mMeshes[node->mMeshes[k]];
        if (!(mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
        std::string mat;
        if (mesh->mMaterialIndex < s->mNumMaterials) {
            aiString name;
            if (s->mMaterials[mesh->mMaterialIndex]->Get(AI_MATKEY_NAME, name) == AI_SUCCESS)
                mat = name.C_Str();
        }
        // OBJ objects become nodes; some importers name the mesh instead of the node.
        std::string nodename = node->mName.C_Str();
        if ((nodename.empty() || nodename.front() == '<' || node == s->mRootNode) &&
            mesh->mName.length > 0)
            nodename = mesh->mName.C_Str();
        auto [it, inserted] =
            groups.emplace(std::make_pair(nodename, mat), static_cast<uint32_t>(out.groups.size()));
        if (inserted) out.groups.push_back({nodename, mat});
        const uint32_t base = static_cast<uint32_t>(out.vertices.size());
        for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
            aiVector3D p = m * mesh->mVertices[i];
            out.vertices.push_back({static_cast<double>(p.x) * scale,
                                    static_cast<double>(p.y) * scale,
                                    static_cast<double>(p.z) * scale});
        }
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
            const aiFace& face = mesh->mFaces[f];
            if (face.mNumIndices != 3) continue;
            out.triangles.push_back(
                {{base + face.mIndices[0], base + face.mIndices[1], base + face.mIndices[2]},
                 it->second});
        }
    }
    for (unsigned c = 0; c < node->mNumChildren; ++c)
        collect(s, node->mChildren[c], m, scale, out, groups);
}

// What is wrong with a file Assimp could not read, for the user. Assimp's reasons are written for
// its developers ("Validation failed: aiScene::mNumMeshes is 0. At least one mesh must be there"):
// those that mean the file holds no surfaces are said as such, those that name Assimp's data
// structures in a user's words, and a format's own reason is kept.
std::string user_reason(const std::string& why) {
    const auto has = [&](const char* s) { return why.find(s) != std::string::npos; };
    for (const char* empty :
         {"mNumMeshes is 0", "No meshes remaining", "contains no faces", "contains no vertices",
          "mNumFaces is 0", "mNumVertices is 0", "came out empty", "no valid vertices",
          "Unable to extract mesh data", "GLTF: No scene", "OBJ-file is too small"})
        if (has(empty)) return "the mesh file has no triangles (nothing to enclose a room)";
    // Assimp catches std::bad_alloc itself: in the reader's child process that is its memory
    // budget run out, which a real model of the file's size does not need.
    if (has("bad_alloc"))
        return "not a readable mesh: the model reader (Assimp) ran out of memory on it (a damaged "
               "file?)";
    if (has("No suitable reader found"))
        return "not a model format Assimp reads (OBJ, glTF/GLB, FBX, DAE, PLY, STL, 3DS, AC, ...)";
    const bool internal = has("Validation failed") || has("::m") || has("aiScene") || has("aiMesh");
    if (internal && has("mIndices") && has("out of range"))
        return "not a readable mesh: a face refers to a vertex that the file does not have";
    if (internal)
        return "not a readable mesh: its data are inconsistent (a damaged or cut-off file?)";
    return "not a readable mesh (" + (why.empty() ? std::string("unknown format") : why) + ")";
}

// Assimp 5.2's PLY reader never returns on a header without its `end_header` line ("ply",
// "format ascii 1.0" and nothing more hung `ardent info` for ever; found by fuzz_mesh_import). A
// file Assimp would read as PLY, by its extension or its "ply" signature, is checked for that
// line first. PLY headers are a few lines; 1 MB without one is no PLY header.
void check_ply_header(const std::filesystem::path& file, const std::string& name) {
    std::ifstream in(file, std::ios::binary);
    std::string line;
    if (!std::getline(in, line)) return;
    std::string ext = file.extension().string();
    for (char& c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto trimmed = [](std::string l) {
        while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t'))
            l.pop_back();
        return l;
    };
    if (ext != ".ply" && trimmed(line) != "ply") return;
    constexpr std::streamoff kMaxHeader = 1 << 20;
    do {
        if (trimmed(line) == "end_header") return;
    } while (in.tellg() < kMaxHeader && std::getline(in, line));
    throw InputError(name + ": not a readable mesh: the PLY header has no end_header line (a " +
                     "damaged or cut-off file?)");
}

// Assimp's part of import_mesh: the file read, checked and flattened into a triangle soup with
// the scale and node transforms applied (not cleaned). What the isolated child runs.
TriangleMesh read_with_assimp(const std::filesystem::path& file, const std::string& name,
                              double scale) {
    Assimp::Importer importer;
    // Keep points and lines out; triangulate polygons; no vertex welding here (clean() does it).
    importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                                aiPrimitiveType_POINT | aiPrimitiveType_LINE);
    // The model is read in its own axes (geometry.up names its vertical): Assimp's COLLADA
    // reader would otherwise turn a Z_UP or X_UP file to Y-up, moving sources off their rooms.
    importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
    const aiScene* s = importer.ReadFile(file.string(), aiProcess_ValidateDataStructure);
    if (!s || !s->mRootNode) throw InputError(name + ": " + user_reason(importer.GetErrorString()));
    // Assimp 5.2's PLY reader can leave a face without vertices, flagged as a polygon, which its
    // validation lets through and its triangulation asserts on: abort() in Debian's build (a
    // 327-byte PLY killed `ardent info`; found by fuzz_mesh_import). Such a face is refused, and
    // the flags are set from the faces, before triangulation runs. The scene is the importer's
    // until it is destroyed, so changing it is ours to do.
    for (unsigned k = 0; k < s->mNumMeshes; ++k) {
        aiMesh* mesh = const_cast<aiMesh*>(s->mMeshes[k]);
        unsigned types = 0;
        for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
            const unsigned n = mesh->mFaces[f].mNumIndices;
            if (n == 0)
                throw InputError(name +
                                 ": not a readable mesh: a face has no vertices (a damaged or "
                                 "cut-off file?)");
            types |= n == 1   ? aiPrimitiveType_POINT
                     : n == 2 ? aiPrimitiveType_LINE
                     : n == 3 ? aiPrimitiveType_TRIANGLE
                              : aiPrimitiveType_POLYGON;
        }
        mesh->mPrimitiveTypes = types;
    }
    s = importer.ApplyPostProcessing(aiProcess_Triangulate | aiProcess_SortByPType);
    if (!s || !s->mRootNode) throw InputError(name + ": " + user_reason(importer.GetErrorString()));
    TriangleMesh out;
    std::map<std::pair<std::string, std::string>, uint32_t> groups;
    collect(s, s->mRootNode, aiMatrix4x4(), scale, out, groups);
    for (const auto& v : out.vertices) {
        if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
            throw InputError(name + ": the mesh has vertices that are not finite numbers");
    }
    return out;
}

// The soup as bytes for the trip out of the child (same machine: native layout): vertex, triangle
// and group counts, then the arrays, then each group's two names with their lengths.
template <class T>
void put(std::string& b, const T& v) {
    b.append(reinterpret_cast<const char*>(&v), sizeof v);
}

static_assert(std::is_trivially_copyable_v<Vec3> && std::is_trivially_copyable_v<Triangle>);

std::string pack_mesh(const TriangleMesh& m) {
    std::string b;
    put(b, m.vertices.size());
    put(b, m.triangles.size());
    put(b, m.groups.size());
    b.append(reinterpret_cast<const char*>(m.vertices.data()), m.vertices.size() * sizeof(Vec3));
    b.append(reinterpret_cast<const char*>(m.triangles.data()),
             m.triangles.size() * sizeof(Triangle));
    for (const SurfaceGroup& g : m.groups)
        for (const std::string* s : {&g.node, &g.material}) {
            put(b, s->size());
            b.append(*s);
        }
    return b;
}

TriangleMesh unpack_mesh(const std::string& b) {
    size_t at = 0;
    const auto take = [&](size_t n) {
        if (n > b.size() - at) throw std::runtime_error("sent back a cut-off answer");
        const char* p = b.data() + at;
        at += n;
        return p;
    };
    const auto count = [&] {
        size_t n;
        std::memcpy(&n, take(sizeof n), sizeof n);
        return n;
    };
    TriangleMesh m;
    const size_t nv = count(), nt = count(), ng = count();
    if (nv > b.size() / sizeof(Vec3) || nt > b.size() / sizeof(Triangle) || ng > b.size())
        throw std::runtime_error("sent back a damaged answer");
    m.vertices.resize(nv);
    std::memcpy(m.vertices.data(), take(nv * sizeof(Vec3)), nv * sizeof(Vec3));
    m.triangles.resize(nt);
    std::memcpy(m.triangles.data(), take(nt * sizeof(Triangle)), nt * sizeof(Triangle));
    m.groups.resize(ng);
    for (SurfaceGroup& g : m.groups)
        for (std::string* s : {&g.node, &g.material}) {
            const size_t n = count();
            s->assign(take(n), n);
        }
    // The child ran Assimp, which was isolated for corrupting memory: its answer is checked
    // before anything indexes with it.
    if (at != b.size()) throw std::runtime_error("sent back a damaged answer");
    for (const Triangle& t : m.triangles)
        if (t.v[0] >= nv || t.v[1] >= nv || t.v[2] >= nv || t.group >= ng)
            throw std::runtime_error("sent back a damaged answer");
    for (const Vec3& v : m.vertices)
        if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
            throw std::runtime_error("sent back a damaged answer");
    return m;
}

}  // namespace

TriangleMesh import_mesh(const std::filesystem::path& file, double scale, MeshIsolation isolation) {
    const std::string name = file.string();
    std::error_code ec;
    if (const std::string kind = special_file_kind(file); !kind.empty())
        throw InputError(name + ": is " + kind + ", expected a mesh file");
    if (!std::filesystem::exists(file, ec)) throw InputError(name + ": mesh file not found");
    if (std::filesystem::is_directory(file, ec))
        throw InputError(name + ": is a directory, expected a mesh file");
    {
        std::ifstream probe(file, std::ios::binary);
        if (!probe) throw InputError(name + ": mesh file cannot be read (permission denied?)");
    }
    const auto size = std::filesystem::file_size(file, ec);
    if (size == 0) throw InputError(name + ": mesh file is empty");
    check_ply_header(file, name);

    TriangleMesh out;
    if (isolation == MeshIsolation::InProcess) {
        out = read_with_assimp(file, name, scale);
    } else {
        // Assimp in a child process (isolated_call.h): generous for any real model (a few bytes
        // of mesh per byte of file), far below what a damaged file made Assimp ask for.
        const double mb = static_cast<double>(ec ? 0 : size) / 1e6;
        const IsolationLimits limits{.memory_bytes = std::max<size_t>(
                                         size_t{4} << 30, 64 * static_cast<size_t>(ec ? 0 : size)),
                                     .timeout_s = std::max(120.0, 2.0 * mb)};
        try {
            const std::string answer = call_isolated(
                [&] { return pack_mesh(read_with_assimp(file, name, scale)); }, limits);
            try {
                out = unpack_mesh(answer);
            } catch (const std::runtime_error& e) {
                throw IsolatedCallError(IsolatedCallError::Kind::Failure, 0, e.what());
            }
        } catch (const IsolatedCallError& e) {
            throw InputError(name + ": not a readable mesh: the model reader (Assimp) " + e.what() +
                             " on it (a damaged file?)");
        }
    }
    out.clean();
    if (out.triangles.empty())
        throw InputError(name + ": the mesh contains no triangles (nothing to enclose a room)");
    return out;
}

TriangleMesh make_box_mesh(Vec3 size) {
    TriangleMesh m;
    const double X = size.x, Y = size.y, Z = size.z;
    m.vertices = {{0, 0, 0}, {X, 0, 0}, {X, Y, 0}, {0, Y, 0},
                  {0, 0, Z}, {X, 0, Z}, {X, Y, Z}, {0, Y, Z}};
    // Faces wound with normals pointing into the room.
    const std::array<std::pair<const char*, std::array<uint32_t, 4>>, 6> faces = {{
        {"floor", {0, 1, 2, 3}},
        {"ceiling", {4, 7, 6, 5}},
        {"wall_y0", {0, 4, 5, 1}},
        {"wall_y1", {3, 2, 6, 7}},
        {"wall_x0", {0, 3, 7, 4}},
        {"wall_x1", {1, 5, 6, 2}},
    }};
    for (uint32_t g = 0; g < faces.size(); ++g) {
        const auto& [name, q] = faces[g];
        m.groups.push_back({name, name});
        m.triangles.push_back({{q[0], q[1], q[2]}, g});
        m.triangles.push_back({{q[0], q[2], q[3]}, g});
    }
    m.clean();
    return m;
}

TriangleMesh load_geometry(const Scene& scene) {
    if (scene.geometry.box) return make_box_mesh(*scene.geometry.box);
    try {
        return import_mesh(scene.geometry.mesh, scene.geometry.scale);
    } catch (const InputError& e) {
        throw InputError(scene.display_name() + ": geometry.mesh: " + e.what());
    }
}

}  // namespace ardent
