// Digests of everything preprocessing hands the solvers, to prove that a faster preprocessor gives
// bit-identical results: the air model (air, materials, emitters, counts), the ARD decomposition
// (partitions in order, interfaces, PML slabs, owners) and the FDTD layout with the CUDA sweep's
// tables. Prints one JSON object of FNV-1a hashes and the time of each stage; compare two builds'
// outputs with diff (the times differ, the hashes must not).
// Usage: preprocess_digest [SCENE.json] [--max-frequency HZ] [--box N] [--no-decompose]
//        [--no-fdtd]   (--box N: López's rigid cube of N^3 grid cells, as bench_fdtd_cpu)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "../solvers/src/fdtd_layout.h"
#include "../solvers/src/fdtd_sweep.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "fdtd_box.h"

namespace {

// FNV-1a over the bytes of plain values and vectors of them.
class Digest {
  public:
    template <typename T>
    Digest& add(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        bytes(&v, sizeof v);
        return *this;
    }
    template <typename T>
    Digest& add(const std::vector<T>& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        add(v.size());
        bytes(v.data(), v.size() * sizeof(T));
        return *this;
    }
    std::string hex() const {
        char buf[24];
        std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
        return buf;
    }

  private:
    void bytes(const void* p, size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i)
            h_ = (h_ ^ b[i]) * 0x100000001b3ULL;
    }
    uint64_t h_ = 0xcbf29ce484222325ULL;
};

// Structs hashed field by field: their padding bytes are not part of the result.
std::string air_digest(const ardent::AirModel& m) {
    Digest d;
    d.add(m.grid.origin).add(m.grid.h).add(m.grid.dims).add(m.air).add(m.material);
    for (const auto* list : {&m.sources, &m.receivers})
        for (const ardent::PlacedEmitter& e : *list)
            d.add(e.cell).add(e.cell_centre);
    d.add(m.air_cells).add(m.boundary_cells).add(m.boundary_faces).add(m.uncovered_faces);
    d.add(m.inside_cells).add(m.cavity).add(m.mesh_volume);
    const ardent::Classification& c = m.classification;
    d.add(c.odd_rays).add(c.rays_hit).add(c.disputed_cells);
    return d.hex();
}

std::string decomposition_digest(const ardent::Decomposition& dec) {
    Digest d;
    for (const ardent::Partition& p : dec.partitions)
        d.add(p.origin).add(p.size);
    for (const ardent::Interface& f : dec.interfaces)
        d.add(f.axis).add(f.plane).add(f.lo).add(f.hi).add(f.left).add(f.right);
    for (const ardent::Interface& f : dec.interfaces)
        d.add(f.depth_left).add(f.depth_right).add(f.color);
    for (const ardent::PmlSlab& s : dec.pml)
        d.add(s.partition).add(s.axis).add(s.side).add(s.lo).add(s.hi).add(s.material).add(s.depth);
    d.add(dec.owner).add(dec.rigid_faces).add(dec.pml_depth);
    return d.hex();
}

std::string fdtd_digest(const ardent::fdtd::FdtdLayout& L, const ardent::fdtd::Sweep& s) {
    Digest d;
    d.add(L.dt).add(L.boundary).add(L.group_first).add(L.group_count).add(L.group_faces);
    for (const auto& c : L.coefficients) {
        d.add(c.air_neighbours).add(c.gain).add(c.loss);
        d.add(c.groups_begin).add(c.groups_end).add(c.terms_begin);
    }
    d.add(L.terms).add(L.interior_cells).add(L.source).add(L.forcing).add(L.receivers);
    d.add(L.grid_cells).add(s.mask).add(s.swept_cells);
    for (const auto& z : s.zrange)
        d.add(z.first).add(z.last);
    return d.hex();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    std::string scene_file = std::string(ARDENT_SOURCE_DIR) + "/data/scenes/shoebox.json";
    double f_max = 0;
    int box = 0;
    bool decompose = true, fdtd = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--max-frequency") && i + 1 < argc) {
            f_max = std::atof(argv[++i]);
        } else if (!std::strcmp(argv[i], "--box") && i + 1 < argc) {
            box = std::atoi(argv[++i]);
        } else if (!std::strcmp(argv[i], "--no-decompose")) {
            decompose = false;
        } else if (!std::strcmp(argv[i], "--no-fdtd")) {
            fdtd = false;
        } else {
            scene_file = argv[i];
        }
    }
    try {
        const ardent::Preprocessed p = [&] {
            if (box > 0) return ardent::bench::lopez_box(box, f_max > 0 ? f_max : 1000);
            ardent::Scene scene = ardent::load_scene(scene_file);
            if (f_max > 0) scene.simulation.max_frequency = f_max;
            ardent::PreprocessOptions o;
            o.decompose = decompose;
            return ardent::preprocess(scene, o);
        }();
        nlohmann::ordered_json out;
        out["scene"] = p.scene.name;
        out["max_frequency"] = p.scene.simulation.max_frequency;
        out["air_cells"] = p.air.air_cells;
        out["voxelize_s"] = p.times.voxelize_s;
        out["decompose_s"] = p.times.decompose_s;
        out["air"] = air_digest(p.air);
        if (box == 0 && decompose) {
            out["partitions"] = p.decomposition.partitions.size();
            out["decomposition"] = decomposition_digest(p.decomposition);
        }
        if (fdtd) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto L = ardent::fdtd::build_fdtd_layout(p, 0, true, box == 0);
            const auto s = ardent::fdtd::build_sweep(p.air);
            out["fdtd_layout_s"] = seconds_since(t0);
            out["fdtd"] = fdtd_digest(L, s);
        }
        std::printf("%s\n", out.dump(2).c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "preprocess_digest: %s\n", e.what());
        return 2;
    }
}
