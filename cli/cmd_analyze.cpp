// `ardent analyze IR.wav`: ISO 3382-1 parameters of one channel of an impulse response, per octave
// or one-third-octave band, as a table or as JSON (docs/cli.md, docs/analysis.md). Reads only;
// writes nothing but standard output.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "ardent/auralize/analysis.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/preprocess/errors.h"
#include "commands.h"

namespace ardent::cli {
namespace {

// A value in a fixed-width column, or "-" where the band does not allow it; `mark` flags a value
// measured with less dynamic range than ISO 3382-1 asks for.
std::string cell(const std::optional<double>& v, int decimals, double scale = 1,
                 bool mark = false) {
    if (!v || !std::isfinite(*v)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *v * scale);
    return std::string(buf) + (mark ? "*" : "");
}

void print_table(const std::string& file, int channel, int channels, const auralize::Analysis& a) {
    std::printf("%s: channel %d of %d, %.0f Hz, %.3f s, direct sound at %.4f s\n", file.c_str(),
                channel, channels, a.sample_rate, a.length_s, a.onset_s);
    std::printf("ISO 3382-1 parameters in %s bands (IEC 61260-1 class 1 filters)\n\n",
                a.bands == auralize::Bands::Octave ? "octave" : "one-third-octave");
    std::printf("%6s %7s %7s %7s %7s %7s %6s %6s %7s %6s\n", "band", "EDT", "T20", "T30", "C50",
                "C80", "D50", "Ts", "noise", "trunc");
    std::printf("%6s %7s %7s %7s %7s %7s %6s %6s %7s %6s\n", "Hz", "s", "s", "s", "dB", "dB", "",
                "ms", "dB", "s");
    bool marked = false, missing = false;
    for (const auralize::BandResult& r : a.results) {
        const bool medt = r.edt_s && !r.edt_reliable, m20 = r.t20_s && !r.t20_reliable,
                   m30 = r.t30_s && !r.t30_reliable;
        marked = marked || medt || m20 || m30;
        for (const auto* v : {&r.edt_s, &r.t20_s, &r.t30_s, &r.c50_db, &r.c80_db, &r.d50, &r.ts_s})
            missing = missing || !*v;
        const std::optional<double> noise =
            std::isfinite(r.noise_floor_db) ? std::optional(r.noise_floor_db) : std::nullopt;
        std::printf("%6.0f %7s %7s %7s %7s %7s %6s %6s %7s %6.3f\n", r.nominal_hz,
                    cell(r.edt_s, 3, 1, medt).c_str(), cell(r.t20_s, 3, 1, m20).c_str(),
                    cell(r.t30_s, 3, 1, m30).c_str(), cell(r.c50_db, 2).c_str(),
                    cell(r.c80_db, 2).c_str(), cell(r.d50, 3).c_str(),
                    cell(r.ts_s, 1, 1000).c_str(), cell(noise, 1).c_str(), r.truncation_s);
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

}  // namespace

Action add_analyze(CLI::App& app) {
    auto* cmd =
        app.add_subcommand("analyze",
                           "ISO 3382-1 parameters (EDT, T20, T30, C50, C80, D50, Ts) of an impulse "
                           "response, per octave or one-third-octave band");
    struct Opts {
        std::string file, bands = "octave";
        bool json = false, third_octave = false;
        int channel = 1;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("IR", o->file, "Impulse response (WAV, FLAC, Ogg, ...)")->required();
    cmd->add_flag("--json", o->json, "Print one JSON object (keys in docs/analysis.md)");
    cmd->add_option("--bands", o->bands, "octave (63 Hz-8 kHz, default) or third (50 Hz-10 kHz)")
        ->check(CLI::IsMember({"octave", "third"}));
    cmd->add_flag("--third-octave", o->third_octave, "Same as --bands third");
    cmd->add_option("--channel", o->channel, "Channel to analyse, 1 for the first (default 1)");
    return [o]() {
        const audio::Audio audio = audio::read_audio(o->file);
        const std::string where = "cannot analyze '" + o->file + "'";
        if (o->channel < 1 || o->channel > audio.channels)
            throw InputError(where + ": --channel " + std::to_string(o->channel) +
                             " is not one of its " + std::to_string(audio.channels) +
                             " channel(s) (1 to " + std::to_string(audio.channels) + ")");
        const auralize::Bands bands = o->third_octave || o->bands == "third"
                                          ? auralize::Bands::Third
                                          : auralize::Bands::Octave;
        auralize::Analysis a;
        try {
            a = auralize::analyze_ir(audio.channel(o->channel - 1), audio.sample_rate, bands);
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
            std::printf("%s\n", j.dump(2).c_str());
        } else {
            print_table(o->file, o->channel, audio.channels, a);
        }
        return 0;
    };
}

}  // namespace ardent::cli
