// What the fuzz targets (fuzz/, docs/fuzzing.md) found, replayed through the public `ardent`
// command: each input as the target saw it, the exit code, the message, nothing written. A test
// here names the target and the finding it came from.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "ardent/auralize/crossover.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/preprocess/errors.h"
#include "test_support.h"

namespace ardent::test {
namespace {

std::string scene_with_mesh(const std::string& mesh) {
    return R"({"format": "ardent-scene/1", "geometry": {"mesh": ")" + mesh +
           R"("}, "materials": {"m": {"absorption": 0.1}}, "surfaces": {"*": "m"},
           "sources": [{"name": "S", "position": [0.2, 0.2, 0.2]}]})";
}

// fuzz_mesh_import, a timeout: Assimp 5.2's PLY reader never returned on a header without its
// end_header line, so `ardent info` hung for ever on these 190 bytes (and on "ply\nformat ascii
// 1.0\n" alone). Killed after 60 s if it hangs again.
TEST(FuzzRegressions, PlyHeaderWithoutEndHeaderIsRefusedNotHung) {
    ScratchDir dir;
    const std::string found =
        "ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\nproperty float y\n"
        "2,operty float z\nelement face 4\nproperty list uchar int vertex_indices 0 0\n"
        "0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
    for (const auto& [name, text] :
         {std::pair<std::string, std::string>{"found.ply", found},
          {"cut.ply", "ply\nformat ascii 1.0\n"},
          // The same header read by its signature under another extension.
          {"cut.model", "ply\r\nformat binary_little_endian 1.0\r\nelement vertex 3\r\n"}}) {
        dir.write(name, text);
        dir.write("scene.json", scene_with_mesh(name));
        const std::string before = dir.listing();
        const CommandResult r = run_ardent("info scene.json", dir.path(), 60);
        EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
        EXPECT_NE(r.err.find(name + ": not a readable mesh: the PLY header has no end_header line"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(dir.listing(), before);
    }
    // A complete header still reaches Assimp: a tetrahedron reads (and is then no room around
    // the source, which is a different message).
    dir.write("tetra.ply",
              "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n"
              "property float z\nelement face 4\nproperty list uchar int vertex_indices\n"
              "end_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n");
    dir.write("scene.json", scene_with_mesh("tetra.ply"));
    const CommandResult ok = run_ardent("info scene.json", dir.path(), 60);
    EXPECT_EQ(ok.err.find("end_header"), std::string::npos) << ok.err;
    EXPECT_EQ(ok.err.find("not a readable mesh"), std::string::npos) << ok.err;
}

// fuzz_mesh_import, a deadly signal: this PLY's damaged face list left a face without vertices,
// flagged as a polygon; Assimp's validation let it through and its triangulation asserted, so
// `ardent info` died of SIGABRT (exit 134) instead of saying what is wrong.
TEST(FuzzRegressions, PlyFaceWithoutVerticesIsRefusedNotAborted) {
    ScratchDir dir;
    dir.write("found.ply",
              "ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\nproperty float y\n"
              "2roperty float z\nelement face 4\nproperty list y\n2roperty float z\n"
              "element face 4\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n"
              "1 0 0\n0 1 0\n0 0 1\n3 0 2 1t uchar int vertex_indices\nend_header\n0 0 0\n"
              "1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n");
    dir.write("scene.json", scene_with_mesh("found.ply"));
    const std::string before = dir.listing();
    const CommandResult r = run_ardent("info scene.json", dir.path(), 60);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("found.ply: not a readable mesh: a face has no vertices"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(dir.listing(), before);
}

// fuzz_mesh_import, out of memory (2026-11-27): a 1 KB COLLADA file (tests/data/fuzz/) with an
// unknown input semantic and a damaged index list made Assimp 5.2 grow a buffer to 12.6 GB
// before `ardent info` saw std::bad_alloc, 60 s later (the editor, or a smaller machine, would
// have died). Assimp now reads in a child process with a memory budget (isolated_call.h): the
// budget runs out within seconds, and the command says so and goes on.
TEST(FuzzRegressions, ColladaAskingForGigabytesIsRefusedWithinABudget) {
    ScratchDir dir;
    std::filesystem::copy_file(
        std::filesystem::path(ARDENT_SOURCE_DIR) / "tests/data/fuzz/collada-asks-for-gigabytes.dae",
        dir.path() / "room.dae");
    dir.write("scene.json", scene_with_mesh("room.dae"));
    const std::string before = dir.listing();
    const CommandResult r = run_ardent("info scene.json", dir.path(), 300);
    EXPECT_EQ(r.exit_code, 2) << r.err;
#if defined(__SANITIZE_ADDRESS__)
    // A sanitized build sets no budget on the child (ASan's shadow memory), and ASan's allocator
    // ends the child with its own out-of-memory report instead of std::bad_alloc.
    EXPECT_NE(r.err.find("room.dae: not a readable mesh: the model reader (Assimp) "),
              std::string::npos)
        << r.err;
#else
    EXPECT_NE(r.err.find("room.dae: not a readable mesh: the model reader (Assimp) ran out of "
                         "memory on it (a damaged file?)"),
              std::string::npos)
        << r.err;
#endif
    EXPECT_EQ(dir.listing(), before);
}

// fuzz_grid_reader: listener-grid files (10 KB, tests/data/fuzz/) whose damaged headers claim
// more than the file can hold. One claimed 1.6e11 samples an IR, and reading its first IR asked
// for 635 GB ("not enough resources" at best); the other's positions were read into a vector of
// the claimed size, and the allocation's exception escaped as no InputError.
TEST(FuzzRegressions, GridClaimingMoreThanItsFileHoldsIsRefused) {
    for (const char* name : {"grid-ir-claims-635GB.h5", "grid-positions-claim-too-many.h5"}) {
        const auto file = source_dir() / "tests" / "data" / "fuzz" / name;
        try {
            const auralize::IrGrid grid(file);
            (void)grid.ir(0);
            ADD_FAILURE() << name << " was read";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(
                          "claims more data than a file of this size can hold (damaged?)"),
                      std::string::npos)
                << name << ": " << e.what();
        }
    }
}

// fuzz_grid_reader, 2026-11-27: a full-band grid (44 KB, tests/data/fuzz/) whose /positions
// claims a stored type that is not a float of a few bytes; HDF5 allocated over 2 GB for the
// conversion before reading. Refused at once, naming the dataset.
TEST(FuzzRegressions, GridWithAForeignNumberTypeIsRefused) {
    const auto file = source_dir() / "tests" / "data" / "fuzz" / "grid-positions-foreign-type.h5";
    try {
        const auralize::IrGrid grid(file);
        ADD_FAILURE() << "the grid was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "/positions does not hold floating-point numbers of at most 8 bytes"),
                  std::string::npos)
            << e.what();
    }
}

// fuzz_grid_reader, undefined behaviour (2026-11-27, the first CI run of scripts/fuzz 60): a
// full-band grid (44 KB, tests/data/fuzz/) whose /geometric crossover_hz is 6e-136 Hz; the join
// at the crossover sized its padding as 40 periods of it (1e140 samples, past size_t: UBSan).
// The reader now refuses a crossover below 10 Hz or above the stored band, and the join refuses a
// padding out of proportion to the IR.
TEST(FuzzRegressions, GridWithAnAbsurdCrossoverIsRefused) {
    const auto file = source_dir() / "tests" / "data" / "fuzz" / "grid-crossover-6e-136-hz.h5";
    try {
        const auralize::IrGrid grid(file);
        ADD_FAILURE() << "the grid was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("crossover_hz is not between 10 Hz and half the "
                                             "sample rate"),
                  std::string::npos)
            << e.what();
    }
    const std::vector<float> ir(4800, 0.f);
    EXPECT_THROW(auralize::join_at_crossover(ir, ir, 48000, 1e-100), std::invalid_argument);
}

// fuzz_grid_reader, undefined behaviour then a non-finite IR (2026-11-28, a fresh-clone run of
// scripts/fuzz 60): a full-band grid (fuzz/corpus/grid_reader/) whose paths run from 7e-285 m to
// 3e294 m. The path past the IR's end no longer overflows its impulse's sample index (synthesis);
// the path of almost no length gave its point an IR of infinities (a pressure of factor / (4 pi
// length)). The reader now refuses paths under 1 mm, factors outside [0, 1] and directions that
// are not unit vectors.
TEST(FuzzRegressions, GridWithAPathOfAlmostNoLengthIsRefused) {
    const auto file =
        source_dir() / "fuzz" / "corpus" / "grid_reader" / "full-band-grid-path-3e243-m.h5";
    try {
        const auralize::IrGrid grid(file);
        ADD_FAILURE() << "the grid was read";
    } catch (const InputError& e) {
        EXPECT_NE(
            std::string(e.what()).find("/geometric/path_length holds a path shorter than 1 mm"),
            std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find(file.filename().string()), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace ardent::test
