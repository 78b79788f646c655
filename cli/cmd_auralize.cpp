// `ardent auralize`: a dry recording through an impulse response (WAV/FLAC/Ogg, any channels) or
// through the listener grid of `ardent simulate` at a listener position, as AmbiX (first order
// from a grid, up to third from an AmbiX IR file) or binaurally through a SOFA HRTF set. All checks
// come before any work; the output is written atomically, so a failed run leaves nothing behind.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ardent/auralize/ambisonics.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/binaural.h"
#include "ardent/auralize/fft_plan_cache.h"
#include "ardent/auralize/hrtf.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/auralize/levels.h"
#include "ardent/auralize/render.h"
#include "ardent/auralize/resample.h"
#include "ardent/pipeline/grid_full_band.h"
#include "ardent/pipeline/grid_map_setup.h"
#include "ardent/pipeline/stop_signals.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/number_text.h"
#include "ardent/preprocess/safe_output.h"
#include "commands.h"
#include "validators.h"

namespace ardent::cli {
namespace {

namespace fs = std::filesystem;
using auralize::Point;

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

Point parse_point(const std::string& text, const char* option) {
    Point p{};
    std::stringstream ss(text);
    std::string part;
    size_t n = 0;
    bool ok = true;
    while (std::getline(ss, part, ',')) {
        if (n == 3) {
            ok = false;
            break;
        }
        // Decimal, as every number option; spaces around a number ("1, 2, 3") are fine.
        const size_t from = part.find_first_not_of(' '), to = part.find_last_not_of(' ');
        part = from == std::string::npos ? std::string() : part.substr(from, to - from + 1);
        ok = ok && parse_number(part, p[n]) && std::isfinite(p[n]);
        ++n;
    }
    if (!ok || n != 3)
        throw InputError(std::string(option) +
                         ": expected three numbers x,y,z (metres, model "
                         "axes), got '" +
                         shown(text) + "'");
    return p;
}

std::string fmt_point(const Point& p) {
    return point_text(p[0], p[1], p[2], 3);
}

double db(double linear) {
    return linear > 0 ? 20 * std::log10(linear) : -std::numeric_limits<double>::infinity();
}

std::vector<std::vector<float>> channels_of(const audio::Audio& a) {
    std::vector<std::vector<float>> out;
    for (int c = 0; c < a.channels; ++c)
        out.push_back(a.channel(c));
    return out;
}

// IR channels resampled to `rate`, keeping the IR convention (resample_ir).
void resample_irs(std::vector<std::vector<float>>& irs, double from, double to) {
    if (from == to) return;
    for (auto& ir : irs)
        ir = audio::resample_ir(std::span<const float>(ir), from, to);
}

double distance(const Point& a, const Point& b) {
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                     (a[2] - b[2]) * (a[2] - b[2]));
}

// Which grid points the listener's IR came from, with their weights, and how its gradient was
// formed: a listener between points hears a blend, and should know how far it reaches.
void print_grid_points(const auralize::IrGrid& grid, const Point& listener,
                       const auralize::FoaIr& foa, bool nearest) {
    const char* kinds[] = {"none", "one-sided", "central"};
    const auto& points = grid.positions();
    if (foa.blend.size() == 1) {
        const Point& gp = points[foa.blend[0].point];
        std::printf("listener %s -> grid point %s, %.3f m away%s", fmt_point(listener).c_str(),
                    fmt_point(gp).c_str(), distance(gp, listener),
                    nearest ? " (nearest)" : " (weight 1)");
    } else {
        std::printf(
            "listener %s -> %zu grid points, trilinear weights (renormalised over the "
            "points in the air):\n",
            fmt_point(listener).c_str(), foa.blend.size());
        for (const auto& w : foa.blend)
            std::printf("  grid point %s, %.3f m away: weight %.4f\n",
                        fmt_point(points[w.point]).c_str(), distance(points[w.point], listener),
                        w.weight);
    }
    std::printf("%sgradient x %s, y %s, z %s", foa.blend.size() == 1 ? "; " : "  ",
                kinds[foa.difference[0]], kinds[foa.difference[1]], kinds[foa.difference[2]]);
    if (grid.has_gradient())
        std::printf(", over the cells next to %s (%.3f m)\n", foa.blend.size() == 1 ? "it" : "each",
                    grid.gradient_spacing());
    else
        std::printf(", over the grid points next to %s (%.3f m; a grid of format 1)\n",
                    foa.blend.size() == 1 ? "it" : "each", grid.spacing());
}

}  // namespace

Action add_auralize(CLI::App& app) {
    auto* cmd = app.add_subcommand(
        "auralize", "Render a dry recording through an impulse response or a listener grid");
    struct Opts {
        std::string dry, ir, output, hrtf, listener, facing = "1,0,0", up = "0,0,1",
                                                     normalize = "loudness",
                                                     grid_interpolation = "trilinear";
        bool ambisonics = false, binaural = false, force = false, no_fft_cache = false;
        int threads = 0;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("DRY,--dry", o->dry, "Dry recording (WAV, FLAC, Ogg, ...; any channels)")
        ->required();
    cmd->add_option("IR,--ir", o->ir,
                    "Impulse response (audio file, any channels) or listener grid "
                    "(grid/<source>.h5 from ardent simulate)")
        ->required();
    cmd->add_option("-o,--output", o->output, "Output file: .wav (32-bit float) or .flac (24-bit)")
        ->required();
    cmd->add_option("--hrtf", o->hrtf,
                    "SOFA HRTF set for binaural output (default for a grid: " +
                        auralize::HrtfSet::default_file().string() + ", MIT KEMAR)");
    cmd->add_flag("--binaural", o->binaural,
                  "Render an AmbiX IR (4, 9 or 16 channels) binaurally through the default HRTF "
                  "set (a grid is rendered binaurally anyway)");
    cmd->add_flag("--ambisonics", o->ambisonics,
                  "Write AmbiX (ACN, SN3D) in the listener's frame instead of binaural (a grid: "
                  "first order; an AmbiX IR: its own order)");
    cmd->add_option("--listener", o->listener,
                    "Listener position x,y,z in metres (model axes); needed for a grid");
    cmd->add_option("--grid-interpolation", o->grid_interpolation,
                    "Between grid points: 'trilinear' (default: the IRs of the grid points "
                    "around the listener, weighted) or 'nearest' (the nearest point's IR)")
        ->check(CLI::IsMember({"trilinear", "nearest"}));
    cmd->add_option("--facing", o->facing, "Direction the listener faces, x,y,z (default 1,0,0)");
    cmd->add_option("--up", o->up, "The listener's up direction, x,y,z (default 0,0,1)");
    cmd->add_option("--normalize", o->normalize,
                    "Output level: 'loudness' (default) -23 LUFS (EBU R128) with the sample peak "
                    "held at or below -1 dBFS, 'peak' -1 dBFS, or 'none' (the convolution as it "
                    "is, in the IR's units)")
        ->check(CLI::IsMember({"loudness", "peak", "none"}));
    cmd->add_option("--threads", o->threads, "Worker threads (default: every core)")
        ->check(thread_count());
    cmd->add_flag("--force", o->force, "Replace the output file if it exists");
    cmd->add_flag("--no-fft-cache", o->no_fft_cache,
                  "Neither read nor write the FFT plan cache ($XDG_CACHE_HOME/ardent); FFTW then "
                  "estimates its plans (slower convolution)");

    return [o]() {
        // ---- everything that can be checked before reading audio ------------------------------
        const fs::path out_path = o->output, dry_path = o->dry, ir_path = o->ir;
        const audio::FileFormat format = audio::format_for(out_path);
        OutputRules rules;
        rules.replace = o->force;
        rules.inputs = {dry_path, ir_path};
        if (!o->hrtf.empty()) rules.inputs.push_back(o->hrtf);
        // One run per output file, for the whole run: a second one is refused at once. The path
        // is checked before its lock file is made beside it, and again holding the lock.
        check_output_file(out_path, rules);
        const OutputLock lock(out_path, "ardent auralize");
        const pipeline::StopSignals signals;  // a stop ends the run with nothing written
        check_output_file(out_path, rules);
        if (o->ambisonics && !o->hrtf.empty())
            throw InputError(
                "--ambisonics and --hrtf exclude each other: AmbiX output is not "
                "binaural");
        if (o->ambisonics && o->binaural)
            throw InputError(
                "--ambisonics and --binaural exclude each other: AmbiX output is not "
                "binaural");
        auralize::Orientation orientation;
        orientation.front = parse_point(o->facing, "--facing");
        orientation.up = parse_point(o->up, "--up");
        {
            const Point& f = orientation.front;
            const Point& u = orientation.up;
            const double nf = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
            const double nu = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            const Point c = {f[1] * u[2] - f[2] * u[1], f[2] * u[0] - f[0] * u[2],
                             f[0] * u[1] - f[1] * u[0]};
            if (!(nf > 0) || !(nu > 0) ||
                std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) < 1e-6 * nf * nu)
                throw InputError("--facing and --up must be non-zero and not parallel");
        }
        // A grid by its signature, or by its name (.h5): a damaged grid file, or a FIFO or
        // folder named like one, is then reported as what it was meant to be, not as audio.
        std::string ext = ir_path.extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        const bool grid_input = auralize::is_hdf5_file(ir_path) || ext == ".h5" || ext == ".hdf5";
        if (!o->hrtf.empty()) auralize::HrtfSet::check_file(o->hrtf);
        if (!grid_input && !o->listener.empty())
            throw InputError("--listener needs a listener grid (.h5 from ardent simulate); " +
                             quoted(ir_path) + " is an impulse response");
        std::optional<Point> listener;
        if (!o->listener.empty()) listener = parse_point(o->listener, "--listener");
        const auralize::Normalize normalize = o->normalize == "peak" ? auralize::Normalize::Peak
                                              : o->normalize == "loudness"
                                                  ? auralize::Normalize::Loudness
                                                  : auralize::Normalize::None;
        const int threads =
            o->threads > 0 ? o->threads
                           : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

        // ---- the dry signal ---------------------------------------------------------------------
        const audio::Audio dry = audio::read_audio(dry_path);
        auralize::check_audio(dry, "dry signal", dry_path);
        const double fs = dry.sample_rate;
        std::printf("dry: %s, %.2f s, %d channel%s, %d Hz\n", dry_path.c_str(),
                    static_cast<double>(dry.frames()) / fs, dry.channels,
                    dry.channels == 1 ? "" : "s", dry.sample_rate);

        // ---- the impulse response(s), at the dry signal's rate ----------------------------------
        std::vector<std::vector<float>> irs;
        auralize::ChannelRole role = auralize::ChannelRole::Speakers;
        bool binaural = false;
        std::optional<auralize::FoaIr> foa;                    // a grid's, in the listener's frame
        std::optional<std::vector<std::vector<float>>> ambix;  // an AmbiX IR file's, likewise
        if (grid_input) {
            const auralize::IrGrid grid(ir_path);
            if (!listener)
                throw InputError(quoted(ir_path) +
                                 " is a listener grid: give --listener x,y,z "
                                 "(metres, model axes) within " +
                                 fmt_point(grid.lower()) + " to " + fmt_point(grid.upper()));
            // A grid is stored at its band's rate (format 3: a few kHz), resampled below.
            if (grid.sample_rate() > auralize::kMaxSampleRate)
                throw InputError("listener grid " + quoted(ir_path) + " has a sample rate of " +
                                 std::to_string(grid.sample_rate()) + " Hz");
            foa = o->grid_interpolation == "nearest"
                      ? auralize::encode_foa(grid, *listener, orientation)
                      : auralize::encode_foa_interpolated(grid, *listener, orientation);
            std::printf("IR: listener grid %s (source %s, %zu points %.3f m apart, %.0f Hz)\n",
                        ir_path.c_str(), grid.source().c_str(), grid.size(), grid.spacing(),
                        grid.sample_rate());
            print_grid_points(grid, *listener, *foa, o->grid_interpolation == "nearest");
            for (auto& ch : foa->channels)
                ch = audio::resample_ir(std::span<const float>(ch), foa->sample_rate, fs);
            if (foa->sample_rate != fs)
                std::printf("IR resampled from %.0f Hz to %.0f Hz (the dry signal's rate)\n",
                            foa->sample_rate, fs);
            foa->sample_rate = fs;
            // A full-band grid: the geometric part above its crossover, synthesised here.
            const double crossover = pipeline::join_grid_full_band(grid, *foa, orientation);
            if (crossover > 0)
                std::printf(
                    "full band: the wave solver below %.0f Hz (directions up to %.0f Hz), "
                    "geometric acoustics above (the grid's image sources and energy envelopes, "
                    "with their directions)\n",
                    crossover, std::min(foa->directional_limit_hz, crossover));
            else
                std::printf(
                    "directions up to %.0f Hz (the difference's step allows no more); above that "
                    "the rendering is omnidirectional (a wave-band grid: nothing above its "
                    "max_frequency)\n",
                    foa->directional_limit_hz);
            // A grid of a full-band run that lost its /geometric group renders the wave band
            // only: said, rather than passed off as a wave-band grid.
            if (crossover <= 0) {
                std::optional<pipeline::GridProvenance> prov;
                try {
                    prov = pipeline::grid_provenance(ir_path, grid.source());
                } catch (const std::exception&) {
                    // No readable result.json beside it: nothing to compare with.
                }
                if (prov && prov->full_band &&
                    pipeline::grid_provenance_mismatch(*prov, grid).empty())
                    std::fprintf(stderr,
                                 "ardent: warning: %s is a grid of a full-band run (%s) without "
                                 "its /geometric group: only the wave band is rendered, nothing "
                                 "above the run's max_frequency\n",
                                 quoted(ir_path).c_str(), prov->file.c_str());
            }
            binaural = !o->ambisonics;
            if (o->ambisonics) {
                irs.assign(foa->channels.begin(), foa->channels.end());
                role = auralize::ChannelRole::AmbiX;
            }
        } else {
            const audio::Audio ir = audio::read_audio(ir_path);
            auralize::check_audio(ir, "impulse response", ir_path);
            std::printf("IR: %s, %.2f s, %d channel%s, %d Hz\n", ir_path.c_str(),
                        static_cast<double>(ir.frames()) / ir.sample_rate, ir.channels,
                        ir.channels == 1 ? "" : "s", ir.sample_rate);
            irs = channels_of(ir);
            resample_irs(irs, ir.sample_rate, fs);
            if (ir.sample_rate != dry.sample_rate)
                std::printf("IR resampled from %d Hz to %.0f Hz (the dry signal's rate)\n",
                            ir.sample_rate, fs);
            const bool to_binaural = o->binaural || !o->hrtf.empty();
            const int order = ir.channels == 4    ? 1
                              : ir.channels == 9  ? 2
                              : ir.channels == 16 ? 3
                                                  : 0;
            if ((o->ambisonics || to_binaural) && order == 0)
                throw InputError(std::string(o->ambisonics ? "--ambisonics"
                                             : o->binaural ? "--binaural"
                                                           : "--hrtf") +
                                 " needs directions: " + quoted(ir_path) + " has " +
                                 std::to_string(ir.channels) +
                                 " channel(s); give a 4-channel AmbiX IR (or 9 or 16 channels: "
                                 "second or third order), or a listener grid (.h5) with "
                                 "--listener");
            if (o->ambisonics || to_binaural) {
                // The file's axes are the model's; the listener hears it in its own frame, as a
                // grid's are encoded.
                auto turned = auralize::rotate_ambix(irs, orientation);
                const auralize::ListenerAxes axes = auralize::listener_axes(orientation);
                std::printf(
                    "AmbiX IR of order %d (ACN, SN3D, along the model's axes) turned to the "
                    "listener's orientation: facing %s, up %s\n",
                    order, fmt_point(axes.front).c_str(), fmt_point(axes.up).c_str());
                if (o->ambisonics) {
                    irs = std::move(turned);
                    role = auralize::ChannelRole::AmbiX;
                } else {
                    ambix = std::move(turned);
                    binaural = true;
                }
            }
        }
        if (binaural) {
            const fs::path sofa =
                o->hrtf.empty() ? auralize::HrtfSet::default_file() : fs::path(o->hrtf);
            const auralize::HrtfSet hrtf(sofa, fs);
            int order = 1;
            std::array<std::vector<float>, 2> ears;
            if (ambix) {
                order = ambix->size() == 16 ? 3 : ambix->size() == 9 ? 2 : 1;
                ears =
                    auralize::binaural_ir(*ambix, fs, auralize::make_binaural_decoder(hrtf, order));
            } else {
                ears = auralize::binaural_ir(*foa, auralize::make_foa_binaural_decoder(hrtf));
            }
            irs.assign(ears.begin(), ears.end());
            role = auralize::ChannelRole::Speakers;
            static const char* const kOrder[] = {"", "first", "second", "third"};
            std::printf("binaural: HRTF set %s (%s), %s-order decoding, diffuse-field equalised\n",
                        hrtf.description().c_str(), sofa.c_str(), kOrder[order]);
        }

        // ---- render, level, write ---------------------------------------------------------------
        const auto pairing = foa || ambix || role == auralize::ChannelRole::AmbiX
                                 ? auralize::Pairing::MonoSource
                                 : auralize::Pairing::ByChannel;
        // Measured FFT plans convolve up to twice as fast as estimated ones, but measuring a large
        // size takes seconds: the cache's measured plan if it has one, else an estimated plan now
        // and the size measured in the background for later runs.
        bool learn = false;
        if (!o->no_fft_cache) {
            for (const auto& w : auralize::enable_plan_cache(auralize::default_plan_cache_dir()))
                std::fprintf(stderr, "ardent: warning: %s\n", w.c_str());
            learn = auralize::plan_cache_enabled();
        }
        auralize::Rendered r =
            auralize::convolve_audio(dry, irs, pairing, {.threads = threads, .learn_fft = learn});
        const auto cache = auralize::take_plan_cache_report();
        for (const auto& w : cache.warnings)
            std::fprintf(stderr, "ardent: warning: %s\n", w.c_str());
        if (r.downmixed)
            std::printf("the %d-channel dry signal was mixed to mono (it is one source)\n",
                        dry.channels);
        const auto change = auralize::normalize(r.audio, normalize, role);
        if (normalize != auralize::Normalize::None && !change.applied)
            std::fprintf(stderr, "ardent: warning: the output is silent; not normalised\n");
        const double peak = auralize::sample_peak(r.audio);
        const size_t over = auralize::samples_beyond_full_scale(r.audio);
        if (over > 0)
            std::fprintf(
                stderr,
                "ardent: warning: %zu samples (%.3f %%) exceed full scale (peak %+.1f "
                "dBFS)%s; the default level or --normalize peak avoids that\n",
                over,
                100.0 * static_cast<double>(over) / static_cast<double>(r.audio.samples.size()),
                db(peak),
                format == audio::FileFormat::Flac24
                    ? " and are clipped in the FLAC file"
                    : ": the float WAV keeps them, but players will clip them");
        if (pipeline::StopSignals::raised()) {
            std::fprintf(stderr, "ardent: interrupted; nothing was written\n");
            return pipeline::StopSignals::exit_code();
        }
        audio::write_audio(out_path, r.audio, rules);
        const char* layout = role == auralize::ChannelRole::AmbiX ? " (AmbiX: W, Y, Z, X)"
                             : binaural                           ? " (binaural: left, right)"
                                                                  : "";
        std::printf("wrote %s: %d channel%s%s, %.2f s at %d Hz; peak %.1f dBFS", out_path.c_str(),
                    r.audio.channels, r.audio.channels == 1 ? "" : "s", layout,
                    static_cast<double>(r.audio.frames()) / fs, r.audio.sample_rate, db(peak));
        // Loudness only when normalised to it: measuring it takes longer than convolving a short
        // file.
        if (normalize == auralize::Normalize::Loudness && change.applied && !change.by_peak)
            std::printf(", loudness %.1f LUFS", auralize::integrated_loudness(r.audio, role));
        if (change.applied)
            std::printf(" (normalised by %+.1f dB%s)", change.gain_db,
                        change.peak_limited ? "; held below -23 LUFS so that the peak stays at "
                                              "-1 dBFS"
                        : change.by_peak ? "; to a -1 dBFS peak: too short or quiet for a loudness "
                                           "measurement"
                                         : "");
        std::printf("\n");
        if (!cache.to_measure.empty() && measure_fft_plans_in_background(cache.to_measure))
            std::printf(
                "FFT plans for this transform size are being measured in the background (once), "
                "for later runs: cached in %s\n",
                auralize::default_plan_cache_dir().c_str());
        return 0;
    };
}

}  // namespace ardent::cli
