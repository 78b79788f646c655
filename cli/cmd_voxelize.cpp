#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/slice_image.h"
#include "commands.h"
#include "validators.h"

namespace ardent::cli {

Action add_voxelize(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "voxelize", "Voxelize and decompose a scene; draw one slice of the grid as a PNG");
    struct Opts {
        std::string scene, slice, output;
        bool force = false;
        double max_frequency = 0;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("SCENE", o->scene, "Scene file (ardent-scene/1 JSON)")->required();
    cmd->add_option("--slice", o->slice,
                    "Slice plane, AXIS=METRES (default: through the first source, normal to the "
                    "model's up axis)")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                // The metres in decimal, as every number option (parse_slice said the rest).
                if (text.size() > 2 && text[1] == '=' && !is_decimal(text.substr(2)))
                    return "\"" + shown(text.substr(2)) + "\" is not a decimal number of metres";
                return {};
            },
            "AXIS=METRES"));
    cmd->add_option("-o,--output", o->output, "PNG file to write");
    cmd->add_flag("--force", o->force, "Replace the output file if it exists");
    cmd->add_option("--max-frequency", o->max_frequency, "Override simulation.max_frequency (Hz)")
        ->check(finite_positive());
    return [o]() {
        // Check what can be checked before the (possibly long) voxelization.
        SliceSpec slice;
        if (!o->slice.empty()) slice = parse_slice(o->slice);
        if (!o->slice.empty() && o->output.empty())
            throw InputError("--slice needs -o FILE.png to say where the picture goes");
        // The picture is a PNG: a file named .jpg holding PNG bytes misleads every viewer.
        if (!o->output.empty()) {
            std::string ext = std::filesystem::path(o->output).extension().string();
            for (char& ch : ext)
                ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (ext != ".png")
                throw InputError("-o " + o->output +
                                 ": the slice is written as PNG; give a file name ending in .png");
        }
        Scene scene = load_scene(o->scene);
        OutputRules rules;
        rules.replace = o->force;
        rules.inputs = scene_inputs(scene);
        if (!o->output.empty()) check_output_file(o->output, rules);
        if (o->max_frequency > 0) scene.simulation.max_frequency = o->max_frequency;
        const Preprocessed p = preprocess(scene);
        const auto& d = p.decomposition;
        std::printf("%zu air cells (h = %.4f m), %zu partitions, %zu interfaces, %zu PML slabs\n",
                    p.air.air_cells, p.air.grid.h, d.partitions.size(), d.interfaces.size(),
                    d.pml.size());
        if (o->output.empty()) return 0;
        if (o->slice.empty()) {
            slice.axis = scene.geometry.up_axis();
            slice.coordinate = p.air.sources.front().cell_centre[slice.axis];
        }
        write_png(o->output, render_slice(p, slice), rules);
        std::printf("slice %c = %.3f m written to %s\n", 'x' + slice.axis, slice.coordinate,
                    o->output.c_str());
        std::printf("colours: walls grey, air light, boundary cells by material:");
        for (size_t m = 0; m < scene.materials.size(); ++m) {
            const auto c = material_colour(static_cast<int>(m));
            std::printf(" %s #%02x%02x%02x", scene.materials[m].name.c_str(), c[0], c[1], c[2]);
        }
        std::printf("; partition outlines dark, sources red, receivers blue\n");
        return 0;
    };
}

}  // namespace ardent::cli
