// `ardent analyze IR.wav`: ISO 3382-1 parameters of one channel of an impulse response, per octave
// or one-third-octave band, as a table or as JSON (docs/cli.md, docs/analysis.md). An IR that
// `ardent simulate` wrote is analysed as what it is: its direct sound's arrival from the geometry
// and its band from the run's result.json beside it. Reads only; writes nothing but standard
// output. With --map, the same parameters at every point of a listener grid, written as CSV and
// PNG maps into a new folder (docs/analysis.md, "Maps").
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/analysis.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/crossover.h"
#include "ardent/auralize/grid_maps.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/pipeline/grid_full_band.h"
#include "ardent/pipeline/grid_map_setup.h"
#include "ardent/pipeline/stop_signals.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/number_text.h"
#include "ardent/preprocess/safe_output.h"
#include "ardent/preprocess/slice_image.h"
#include "commands.h"
#include "validators.h"

namespace ardent::cli {
namespace {

namespace fs = std::filesystem;

// What result.json says about an IR of its run (DIR/ir/<pair>.wav or DIR/ambix/<pair>.wav).
struct Provenance {
    double onset_s = -1;      // source-receiver distance (cell centres) over c
    double valid_to_hz = 0;   // a wave-band run's IRs are flat to 0.8 max_frequency; 0: full band
    double crossover_hz = 0;  // a full-band run's
    std::string pair, note;   // "S1 -> R1", and why (for the report)
};

// Why result.json's account of one of its IRs does not fit `audio`, the file beside it; empty when
// it does. Such a file belongs to another run (or was edited): a source 1e6 m away put the direct
// sound at 2915 s in a 0.2 s IR, and a negative speed of sound fell back without a word.
std::string provenance_mismatch(const nlohmann::json& j, const fs::path& ir,
                                const audio::Audio& audio, const std::string& source,
                                const std::string& receiver, double distance) {
    char why[200];
    if (ir.filename() != source + "_" + receiver + ".wav")
        return "it names the IR of " + source + " and " + receiver + " " +
               (source + "_" + receiver + ".wav");
    const double c = j.at("settings").at("speed_of_sound").get<double>();
    if (!(c > 0) || !std::isfinite(c)) {
        std::snprintf(why, sizeof why, "its speed of sound, %g m/s, is not a positive number", c);
        return why;
    }
    const auto& info = j.at("ir");
    const double rate = info.at("sample_rate").get<double>();
    if (rate != audio.sample_rate) {
        std::snprintf(why, sizeof why, "it says %g Hz, the file is at %d Hz", rate,
                      audio.sample_rate);
        return why;
    }
    const double samples = info.at("samples").get<double>();
    if (samples != static_cast<double>(audio.frames())) {
        std::snprintf(why, sizeof why, "it says %.0f samples, the file holds %zu", samples,
                      audio.frames());
        return why;
    }
    const double onset = distance / c, length = static_cast<double>(audio.frames()) / rate;
    if (!(onset < length)) {
        std::snprintf(why, sizeof why,
                      "its direct sound, %.4g m at %g m/s, arrives at %.4g s, after the IR's end "
                      "at %.4g s",
                      distance, c, onset, length);
        return why;
    }
    return {};
}

// Nothing when `ir` is not in a results directory, result.json cannot be read as one, or it does
// not describe `audio` (with a warning for the latter two: the IR is then analysed like any
// other).
std::optional<Provenance> from_result_json(const fs::path& ir, const audio::Audio& audio) {
    const fs::path dir = ir.parent_path().parent_path(), sub = ir.parent_path().filename();
    const fs::path file = (dir.empty() ? fs::path(".") : dir) / "result.json";
    std::error_code ec;
    if ((sub != "ir" && sub != "ambix") || !fs::is_regular_file(file, ec)) return std::nullopt;
    try {
        const auto result = pipeline::read_result_json(file);
        if (!result) return std::nullopt;
        const nlohmann::json& j = *result;
        const std::string name = sub.string() + "/" + ir.filename().string();
        const auto& files = j.at("files").at(sub.string());
        const auto& sources = j.at("sources");
        const auto& receivers = j.at("receivers");
        for (size_t i = 0; i < files.size(); ++i) {
            if (files[i] != name) continue;
            if (receivers.empty() || i >= sources.size() * receivers.size()) break;
            const auto& s = sources[i / receivers.size()];
            const auto& r = receivers[i % receivers.size()];
            double d2 = 0;
            for (size_t a = 0; a < 3; ++a) {
                const double d = s.at("cell_centre").at(a).get<double>() -
                                 r.at("cell_centre").at(a).get<double>();
                d2 += d * d;
            }
            const std::string mismatch =
                provenance_mismatch(j, ir, audio, s.at("name").get<std::string>(),
                                    r.at("name").get<std::string>(), std::sqrt(d2));
            if (!mismatch.empty()) {
                std::fprintf(stderr,
                             "ardent: warning: %s does not describe '%s' (%s); the IR is analysed "
                             "alone\n",
                             file.c_str(), ir.c_str(), printable_text(mismatch).c_str());
                return std::nullopt;
            }
            Provenance p;
            const double c = j.at("settings").at("speed_of_sound").get<double>();
            p.onset_s = std::sqrt(d2) / c;
            char how[160];
            std::snprintf(how, sizeof how, ", %.3f m at %.1f m/s", std::sqrt(d2), c);
            p.pair =
                s.at("name").get<std::string>() + " -> " + r.at("name").get<std::string>() + how;
            if (j.at("band").at("mode") == "wave")
                p.valid_to_hz = j.at("excitation").at("flat_to_hz").get<double>();
            else
                p.crossover_hz = j.at("band").at("crossover_hz").get<double>();
            p.note = file.string();
            if (!(p.valid_to_hz >= 0 && std::isfinite(p.valid_to_hz)) ||
                !(p.crossover_hz >= 0 && std::isfinite(p.crossover_hz)))
                throw std::runtime_error("its band (flat_to_hz, crossover_hz) is not a frequency");
            return p;
        }
        std::fprintf(stderr,
                     "ardent: warning: %s does not list '%s' among its files; the IR is analysed "
                     "alone\n",
                     file.c_str(), name.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ardent: warning: %s: not read (%s); the IR is analysed alone\n",
                     file.c_str(), e.what());
    }
    return std::nullopt;
}

// How many frames the header of WAV file `file` declares its data chunk to hold; 0 when it is not
// a plain RIFF/WAVE file or declares no size (a stream's 0 or 0xFFFFFFFF). libsndfile reads a
// file cut inside its data as the shorter file it is, without a word.
size_t wav_declared_frames(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    char head[12];
    if (!in.read(head, 12) || std::memcmp(head, "RIFF", 4) != 0 || std::memcmp(head + 8, "WAVE", 4))
        return 0;
    const auto u32 = [](const unsigned char* b) {
        return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 |
               std::uint32_t{b[3]} << 24;
    };
    std::uint32_t block_align = 0;
    unsigned char chunk[8];
    for (int n = 0; n < 64 && in.read(reinterpret_cast<char*>(chunk), 8); ++n) {
        const std::uint32_t size = u32(chunk + 4);
        if (std::memcmp(chunk, "fmt ", 4) == 0 && size >= 16) {
            unsigned char fmt[16];
            if (!in.read(reinterpret_cast<char*>(fmt), 16)) return 0;
            block_align = std::uint32_t{fmt[12]} | std::uint32_t{fmt[13]} << 8;
            in.seekg(static_cast<std::streamoff>(size - 16 + (size & 1)), std::ios::cur);
        } else if (std::memcmp(chunk, "data", 4) == 0) {
            if (block_align == 0 || size == 0 || size == 0xFFFFFFFFu) return 0;
            return size / block_align;
        } else {
            in.seekg(static_cast<std::streamoff>(size) + (size & 1), std::ios::cur);
        }
    }
    return 0;
}

// A value in a fixed-width column, or "-" where the band does not allow it; `mark` flags a value
// measured with less dynamic range than ISO 3382-1 asks for.
std::string cell(const std::optional<double>& v, int decimals, double scale = 1,
                 bool mark = false) {
    if (!v || !std::isfinite(*v)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *v * scale);
    return std::string(buf) + (mark ? "*" : "");
}

void print_table(const std::string& file, int channel, int channels, const auralize::Analysis& a,
                 const std::string& source, const std::string& band_note, double crossover_hz) {
    std::printf("%s: channel %d of %d, %.0f Hz, %.3f s, direct sound at %.4f s (%s)\n",
                file.c_str(), channel, channels, a.sample_rate, a.length_s, a.onset_s,
                a.onset_given ? source.c_str() : "ISO 3382-1's rule on the analysed bands");
    if (a.valid_to_hz > 0)
        std::printf("bands above %.0f Hz left out: %s\n", a.valid_to_hz, band_note.c_str());
    std::printf("ISO 3382-1 parameters in %s bands (IEC 61260-1 class 1 filters)\n\n",
                a.bands == auralize::Bands::Octave ? "octave" : "one-third-octave");
    // A full-band IR's bands say which solver they came from.
    const bool from = crossover_hz > 0;
    std::printf("%6s %7s %7s %7s %7s %7s %6s %6s %6s %7s %6s%s\n", "band", "EDT", "T20", "T30",
                "C50", "C80", "D50", "Ts", "G", "noise", "trunc", from ? "  from" : "");
    std::printf("%6s %7s %7s %7s %7s %7s %6s %6s %6s %7s %6s\n", "Hz", "s", "s", "s", "dB", "dB",
                "", "ms", "dB", "dB", "s");
    bool marked = false, missing = false;
    for (const auralize::BandResult& r : a.results) {
        const bool medt = r.edt_s && !r.edt_reliable, m20 = r.t20_s && !r.t20_reliable,
                   m30 = r.t30_s && !r.t30_reliable;
        marked = marked || medt || m20 || m30;
        for (const auto* v : {&r.edt_s, &r.t20_s, &r.t30_s, &r.c50_db, &r.c80_db, &r.d50, &r.ts_s})
            missing = missing || !*v;
        const std::optional<double> noise =
            std::isfinite(r.noise_floor_db) ? std::optional(r.noise_floor_db) : std::nullopt;
        const std::string origin =
            from ? std::string("  ") + auralize::to_string(auralize::band_origin(
                                           r.lower_hz, r.upper_hz, crossover_hz))
                 : "";
        std::printf("%6.0f %7s %7s %7s %7s %7s %6s %6s %6s %7s %6.3f%s\n", r.nominal_hz,
                    cell(r.edt_s, 3, 1, medt).c_str(), cell(r.t20_s, 3, 1, m20).c_str(),
                    cell(r.t30_s, 3, 1, m30).c_str(), cell(r.c50_db, 2).c_str(),
                    cell(r.c80_db, 2).c_str(), cell(r.d50, 3).c_str(),
                    cell(r.ts_s, 1, 1000).c_str(), cell(r.g_db, 1).c_str(), cell(noise, 1).c_str(),
                    r.truncation_s, origin.c_str());
    }
    std::printf(
        "\nnoise: the noise floor in dB below the band's peak; trunc: where the decay meets "
        "it (Lundeby), seconds from the start of the file.\n");
    if (marked)
        std::printf(
            "*: unreliable: the band's peak stands less than 20 dB (EDT), 35 dB (T20) or "
            "45 dB (T30) above its noise floor (ISO 3382-1).\n");
    if (missing)
        std::printf(
            "-: not measurable: the decay does not reach the end of the evaluation range "
            "above the noise, or the band holds no energy.\n");
}

// ---- `--map GRID.h5`: the parameters over a listener grid ---------------------------------

struct MapOpts {
    std::string grid, out;
    auralize::Bands bands = auralize::Bands::Octave;
    double max_frequency = 0, height = std::nan("");
    bool force = false, no_result = false;
    int threads = 0;
};

// DIR/result.json's account of a grid, or nothing with a warning when it cannot be read or does
// not describe the grid: the grid is then analysed alone.
std::optional<pipeline::GridProvenance> grid_provenance(const fs::path& grid_file,
                                                        const auralize::IrGrid& grid) {
    const fs::path dir = grid_file.parent_path().parent_path();
    const fs::path result = (dir.empty() ? fs::path(".") : dir) / "result.json";
    try {
        auto prov = pipeline::grid_provenance(grid_file, grid.source());
        if (prov) {
            const std::string why = pipeline::grid_provenance_mismatch(*prov, grid);
            if (why.empty()) return prov;
            std::fprintf(stderr,
                         "ardent: warning: %s does not describe '%s' (%s); the grid is analysed "
                         "alone\n",
                         result.c_str(), grid_file.c_str(), printable_text(why).c_str());
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ardent: warning: %s: not read (%s); the grid is analysed alone\n",
                     result.c_str(), e.what());
    }
    return std::nullopt;
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

std::string band_label(double hz) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", hz);
    return b;
}

// map.csv: one row per point and band, the parameters in columns; empty where not measurable.
void write_map_csv(const fs::path& file, const auralize::IrGrid& grid,
                   const std::vector<auralize::Analysis>& maps) {
    std::ofstream out(file);
    out << "point,x_m,y_m,z_m,band_hz,t20_s,edt_s,c80_db,d50,t20_reliable,edt_reliable,from,"
           "g_db\n";
    const auralize::GridGeometric* g = grid.geometric();
    const auto from = [&](const auralize::BandResult& r) {
        return g ? auralize::to_string(
                       auralize::band_origin(r.lower_hz, r.upper_hz, g->crossover_hz))
                 : "wave";
    };
    char line[512];
    const auto num = [](const std::optional<double>& v) {
        if (!v || !std::isfinite(*v)) return std::string();
        char b[32];
        std::snprintf(b, sizeof b, "%.9g", *v);
        return std::string(b);
    };
    for (size_t i = 0; i < maps.size(); ++i) {
        const auto& p = grid.positions()[i];
        for (const auralize::BandResult& r : maps[i].results) {
            std::snprintf(line, sizeof line, "%zu,%.6f,%.6f,%.6f,%s,%s,%s,%s,%s,%d,%d,%s,%s\n", i,
                          p[0], p[1], p[2], band_label(r.nominal_hz).c_str(), num(r.t20_s).c_str(),
                          num(r.edt_s).c_str(), num(r.c80_db).c_str(), num(r.d50).c_str(),
                          r.t20_reliable ? 1 : 0, r.edt_reliable ? 1 : 0, from(r),
                          num(r.g_db).c_str());
            out << line;
        }
    }
    out.close();
    if (!out) throw_write_error(file, errno);
}

// The PNG of every parameter and band on `plane`; returns how many were written.
size_t write_map_pngs(const fs::path& dir, const auralize::IrGrid& grid,
                      const std::vector<auralize::Analysis>& maps,
                      const auralize::MapPlane& plane) {
    size_t written = 0;
    const auto& bands = maps.front().results;
    for (size_t b = 0; b < bands.size(); ++b)
        for (const auralize::MapParameter m : auralize::kMapParameters) {
            std::vector<std::optional<double>> values(grid.size());
            double lo = HUGE_VAL, hi = -HUGE_VAL;
            for (size_t i = 0; i < grid.size(); ++i)
                if (b < maps[i].results.size())
                    values[i] = auralize::value_of(maps[i].results[b], m);
            for (size_t i : plane.points)
                if (values[i] && std::isfinite(*values[i])) {
                    lo = std::min(lo, *values[i]);
                    hi = std::max(hi, *values[i]);
                }
            const std::string name = auralize::name_of(m) + "_" + band_label(bands[b].nominal_hz) +
                                     "hz.png",
                              unit = auralize::unit_of(m);
            if (!(lo <= hi)) {
                std::printf("  %-18s not written: no point of the plane has a value\n",
                            name.c_str());
                continue;
            }
            write_png(dir / name, auralize::map_image(grid, plane, values, lo, hi), OutputRules{});
            std::printf("  %-18s %s %s Hz: %.3f%s%s (dark blue) to %.3f%s%s (yellow)\n",
                        name.c_str(), upper(auralize::name_of(m)).c_str(),
                        band_label(bands[b].nominal_hz).c_str(), lo, unit.empty() ? "" : " ",
                        unit.c_str(), hi, unit.empty() ? "" : " ", unit.c_str());
            ++written;
        }
    return written;
}

// Empty when `dir` holds only what --map writes: map.csv (with its header) and PNG maps named
// <parameter>_<band>hz.png. Otherwise what in it is not a map's, for the message.
std::string not_maps(const fs::path& dir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        const bool file = e.is_regular_file(ec) && !e.is_symlink(ec);
        if (file && name == "map.csv") {
            std::ifstream in(e.path());
            std::string header;
            std::getline(in, header);
            if (header.rfind("point,x_m,y_m,z_m,band_hz,", 0) == 0) continue;
        }
        const bool png = name.size() > 6 && name.compare(name.size() - 6, 6, "hz.png") == 0 &&
                         name.find('_') != std::string::npos;
        if (!file || !png)
            return quoted_path(e.path()) + ", which ardent analyze did not write, is in it";
    }
    if (ec) return "cannot read " + quoted_path(dir) + ": " + ec.message();
    return {};
}

int run_map(const MapOpts& o) {
    const fs::path out = o.out;
    if (out.empty()) throw InputError("--map needs -o DIR, the folder to write the maps into");
    // The folder checked before the (long) analysis, and one run per folder of maps: checked
    // before its lock file is made beside it, and again holding the lock.
    const FolderKind maps_folder{"a folder of maps that ardent analyze --map wrote", not_maps};
    OutputRules rules;
    rules.replace = o.force;
    rules.inputs = {o.grid};
    check_output_folder(out, rules, maps_folder);
    const OutputLock lock(out, "ardent analyze --map");
    OutputFolder folder(out, rules, maps_folder);
    const pipeline::StopSignals signals;  // a stop ends the run with nothing written
    const auralize::IrGrid grid(o.grid);
    const auto prov = o.no_result ? std::nullopt : grid_provenance(o.grid, grid);
    auralize::GridAnalysisOptions options = pipeline::grid_map_options(grid, prov);
    options.bands = o.bands;
    options.threads = o.threads;
    options.stop = pipeline::StopSignals::flag();
    std::string onset = "ISO 3382-1's rule at each point", band = "no band limit";
    if (prov) {
        onset = "each point's distance to source " + grid.source() + " at " +
                point_text(prov->source[0], prov->source[1], prov->source[2], 3) + " over " +
                number_text(prov->speed_of_sound, 1) + " m/s (" + prov->file + ")";
        band =
            "bands above " + number_text(prov->flat_to_hz, 0) + " Hz left out, the run's flat band";
    }
    // A full-band grid: each point's IR joined to the grid's geometric part above the
    // crossover, at the receivers' rate, analysed as a full-band receiver IR is.
    if (const auralize::GridGeometric* g = grid.geometric())
        band = "full band at " + number_text(options.ir_rate, 0) + " Hz: the wave solver below " +
               number_text(g->crossover_hz, 0) +
               " Hz, geometric acoustics above (the grid's /geometric)";
    if (o.max_frequency > 0) {
        options.max_frequency_hz = o.max_frequency;
        band = "bands above " + number_text(o.max_frequency, 0) + " Hz left out (--max-frequency)";
    }
    std::printf("map: listener grid %s (source %s, %zu points %.3f m apart, %.0f Hz)\n",
                o.grid.c_str(), grid.source().c_str(), grid.size(), grid.spacing(),
                grid.sample_rate());
    std::printf("direct sound: %s; %s\n", onset.c_str(), band.c_str());
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<auralize::Analysis> maps = auralize::analyze_grid(grid, options);
    if (pipeline::StopSignals::raised()) {
        std::fprintf(stderr, "ardent: interrupted; nothing was written\n");
        return pipeline::StopSignals::exit_code();
    }
    std::printf("analysed %zu points in %.1f s\n", maps.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

    double height = o.height;
    std::string why = "--height";
    if (!std::isfinite(height)) {
        if (prov && prov->receiver_height) {
            height = *prov->receiver_height;
            why = "the receivers' mean height in result.json";
        } else {
            height = grid.lower()[2] + 1.2;
            why = "1.2 m above the lowest grid point";
        }
    }
    const auralize::MapPlane plane = auralize::plane_nearest(grid, height);

    // Everything goes to a folder of its own first: a failed run leaves nothing behind.
    folder.create();
    write_map_csv(folder.tmp() / "map.csv", grid, maps);
    std::printf("plane z = %.3f m (nearest %.3f m, %s): %zu points; colour scale per map:\n",
                plane.z, height, why.c_str(), plane.points.size());
    write_map_pngs(folder.tmp(), grid, maps, plane);
    if (pipeline::StopSignals::raised()) {
        std::fprintf(stderr, "ardent: interrupted; nothing was written\n");
        return pipeline::StopSignals::exit_code();
    }
    folder.commit();
    std::printf("wrote %s: map.csv (%zu points x %zu bands) and the PNGs above\n", out.c_str(),
                maps.size(), maps.front().results.size());
    return 0;
}

}  // namespace

Action add_analyze(CLI::App& app) {
    auto* cmd =
        app.add_subcommand("analyze",
                           "ISO 3382-1 parameters (EDT, T20, T30, C50, C80, D50, Ts) of an impulse "
                           "response, per octave or one-third-octave band");
    struct Opts {
        std::string file, bands = "octave", map, out;
        bool json = false, third_octave = false, no_result = false, force = false;
        int channel = 1, threads = 0;
        double max_frequency = 0, height = std::nan("");
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("IR", o->file, "Impulse response (WAV, FLAC, Ogg, ...)");
    cmd->add_option("--map", o->map,
                    "Listener grid (grid/<source>.h5 of ardent simulate): T20, EDT, C80, D50 and G "
                    "at every grid point, as DIR/map.csv and a PNG per parameter and band");
    cmd->add_option("-o,--output", o->out, "With --map: the folder to write (must not exist)");
    cmd->add_option("--height", o->height,
                    "With --map: the listener height in metres (model z) whose grid layer the "
                    "PNGs show (default: the receivers' mean height, else 1.2 m above the lowest "
                    "grid point)")
        ->check(finite_number());
    cmd->add_flag("--force", o->force, "With --map: replace the output folder if it exists");
    cmd->add_option("--threads", o->threads, "With --map: worker threads (default: every core)")
        ->check(thread_count());
    cmd->add_flag("--json", o->json, "Print one JSON object (keys in docs/analysis.md)");
    CLI::Option* bands_option =
        cmd->add_option("--bands", o->bands,
                        "octave (63 Hz-8 kHz, default) or third (50 Hz-10 kHz)")
            ->check(CLI::IsMember({"octave", "third"}));
    cmd->add_flag("--third-octave", o->third_octave, "Same as --bands third");
    cmd->add_option("--channel", o->channel, "Channel to analyse, 1 for the first (default 1)")
        // 0 and channels the file lacks are refused below, naming the file.
        ->check(whole_number(0, std::numeric_limits<int>::max()));
    cmd->add_option("--max-frequency", o->max_frequency,
                    "The highest frequency the IR holds (e.g. a band-limited simulation's flat "
                    "band): bands above it are left out")
        ->check(finite_positive());
    cmd->add_flag("--no-result", o->no_result,
                  "Ignore the result.json of the run that wrote the IR (onset and band from the "
                  "IR alone)");
    return [o, bands_option]() {
        // `--third-octave --bands octave` ran thirds without a word.
        if (o->third_octave && bands_option->count() > 0 && o->bands != "third")
            throw InputError("--third-octave and --bands " + o->bands +
                             " contradict each other: give one of them");
        if (!o->map.empty()) {
            if (!o->file.empty())
                throw InputError("give an IR to analyse or --map GRID.h5, not both ('" + o->file +
                                 "' and '" + o->map + "')");
            if (o->json || o->channel != 1)
                throw InputError("--json and --channel apply to one IR, not to --map");
            if (!(o->max_frequency >= 0) || !std::isfinite(o->max_frequency))
                throw InputError("--max-frequency: expected a frequency in Hz, got " +
                                 std::to_string(o->max_frequency));
            MapOpts m;
            m.grid = o->map;
            m.out = o->out;
            m.bands = o->third_octave || o->bands == "third" ? auralize::Bands::Third
                                                             : auralize::Bands::Octave;
            m.max_frequency = o->max_frequency;
            m.height = o->height;
            m.force = o->force;
            m.no_result = o->no_result;
            m.threads = o->threads;
            return run_map(m);
        }
        if (o->file.empty()) throw InputError("give an IR to analyse, or --map GRID.h5 -o DIR");
        if (!o->out.empty() || o->force || std::isfinite(o->height) || o->threads != 0)
            throw InputError("-o, --force, --height and --threads apply to --map only");
        const audio::Audio audio = audio::read_audio(o->file);
        if (const size_t declared = wav_declared_frames(o->file); declared > audio.frames())
            std::fprintf(stderr,
                         "ardent: warning: '%s': its header declares %zu frames, the file holds "
                         "%zu (cut off?); the frames there are analysed\n",
                         o->file.c_str(), declared, audio.frames());
        const std::string where = "cannot analyze '" + o->file + "'";
        if (o->channel < 1 || o->channel > audio.channels)
            throw InputError(where + ": --channel " + std::to_string(o->channel) +
                             " is not one of its " + std::to_string(audio.channels) +
                             " channel(s) (1 to " + std::to_string(audio.channels) + ")");
        const auralize::Bands bands = o->third_octave || o->bands == "third"
                                          ? auralize::Bands::Third
                                          : auralize::Bands::Octave;
        if (!(o->max_frequency >= 0) || !std::isfinite(o->max_frequency))
            throw InputError("--max-frequency: expected a frequency in Hz, got " +
                             std::to_string(o->max_frequency));
        auralize::AnalysisOptions options;
        std::string source = "given", band_note = "--max-frequency";
        double crossover_hz = 0;
        if (const auto p = o->no_result ? std::nullopt : from_result_json(o->file, audio)) {
            options.onset_s = p->onset_s;
            // Ardent's IR convention: a unit monopole's direct sound sums to 1 / (4 pi r).
            options.free_field_10m = 1 / (40 * std::numbers::pi);
            options.max_frequency_hz = p->valid_to_hz;
            source = "the direct path " + p->pair + ", from " + p->note;
            band_note = "the run's IRs are flat to it (" + p->note + ")";
            crossover_hz = p->crossover_hz;
        }
        if (o->max_frequency > 0) {
            options.max_frequency_hz = o->max_frequency;
            band_note = "--max-frequency";
        }
        auralize::Analysis a;
        try {
            a = auralize::analyze_ir(audio.channel(o->channel - 1), audio.sample_rate, bands,
                                     options);
        } catch (const InputError& e) {
            const std::string ch =
                audio.channels > 1 ? " channel " + std::to_string(o->channel) : "";
            throw InputError(where + ch + ": " + e.what());
        }
        if (o->json) {
            nlohmann::ordered_json j;
            j["file"] = o->file;
            j["channel"] = o->channel;
            j["channels"] = audio.channels;
            j.update(auralize::to_json(a));
            if (crossover_hz > 0) {
                j["crossover_hz"] = crossover_hz;
                for (size_t b = 0; b < a.results.size(); ++b)
                    j["bands"][b]["from"] = auralize::to_string(auralize::band_origin(
                        a.results[b].lower_hz, a.results[b].upper_hz, crossover_hz));
            }
            std::printf("%s\n", j.dump(2).c_str());
        } else {
            print_table(o->file, o->channel, audio.channels, a, source, band_note, crossover_hz);
        }
        return 0;
    };
}

}  // namespace ardent::cli
