#include "ardent/editor/results_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <fstream>
#include <map>
#include <numbers>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/spectrum.h"
#include "ardent/preprocess/errors.h"

namespace ardent::editor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

// A key of result.json that must be there, with the type asked for.
const json& need(const json& j, const char* key, const fs::path& file, const char* what) {
    if (!j.is_object() || !j.contains(key))
        throw InputError(quoted(file) + ": no \"" + key + "\" (" + what +
                         "); is it a result.json of ardent simulate?");
    return j.at(key);
}

}  // namespace

std::string file_name_part(const std::string& name) {
    std::string s = name;
    for (char& c : s) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
        if (!ok) c = '_';
    }
    return s;
}

ResultsData read_results(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(quoted(dir) +
                         " is not a directory (a results directory of ardent "
                         "simulate holds result.json, ir/ and grid/)");
    ResultsData r;
    r.dir = fs::absolute(dir, ec);
    const fs::path file = r.dir / "result.json";
    std::ifstream in(file);
    if (!in) throw InputError(quoted(file) + " cannot be read: no result.json in the directory");
    json j;
    try {
        j = json::parse(in);
    } catch (const json::exception& e) {
        throw InputError(quoted(file) + " is not valid JSON: " + e.what());
    }
    try {
        const json& settings = need(j, "settings", file, "the simulation settings");
        r.max_frequency_hz = need(settings, "max_frequency", file, "settings").get<double>();
        r.full_band = settings.value("band", std::string("wave")) == "full";
        if (r.full_band && j.contains("band") && j["band"].is_object())
            r.crossover_hz = j["band"].value("crossover_hz", 0.0);
        const json& ir = need(j, "ir", file, "the IR format");
        r.sample_rate = need(ir, "sample_rate", file, "the IRs' rate").get<double>();
        const json& files = need(j, "files", file, "the files written");
        for (const json& g : files.value("grid", json::array()))
            r.grids.push_back(r.dir / g.get<std::string>());
        // Pairs in the order `acoustics` lists them (sources, then receivers), else every
        // source with every receiver.
        std::vector<std::pair<std::string, std::string>> names;
        if (j.contains("acoustics") && j["acoustics"].is_array()) {
            for (const json& a : j["acoustics"])
                names.emplace_back(need(a, "source", file, "acoustics").get<std::string>(),
                                   need(a, "receiver", file, "acoustics").get<std::string>());
        } else {
            for (const json& s : need(j, "sources", file, "the sources"))
                for (const json& rc : need(j, "receivers", file, "the receivers"))
                    names.emplace_back(s.at("name").get<std::string>(),
                                       rc.at("name").get<std::string>());
        }
        // Where each emitter's cell centre is, for the direct sound's arrival.
        std::map<std::string, std::array<double, 3>> sources, receivers;
        for (const auto& [key, into] : {std::pair{"sources", &sources}, {"receivers", &receivers}})
            for (const json& e : j.value(key, json::array()))
                if (e.contains("name") && e.contains("cell_centre"))
                    (*into)[e["name"].get<std::string>()] =
                        e["cell_centre"].get<std::array<double, 3>>();
        const double c = settings.value("speed_of_sound", 0.0);
        for (const auto& [source, receiver] : names) {
            ResultPair p;
            p.source = source;
            p.receiver = receiver;
            if (sources.count(source) && receivers.count(receiver) && c > 0) {
                const auto &a = sources[source], &b = receivers[receiver];
                p.direct_s = std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) / c;
            }
            p.ir_file =
                r.dir / "ir" / (file_name_part(source) + "_" + file_name_part(receiver) + ".wav");
            {
                std::error_code aec;
                const fs::path ambix =
                    r.dir / "ambix" /
                    (file_name_part(source) + "_" + file_name_part(receiver) + ".wav");
                if (fs::is_regular_file(ambix, aec)) p.ambix_file = ambix;
            }
            r.pairs.push_back(std::move(p));
        }
    } catch (const json::exception& e) {
        throw InputError(quoted(file) + ": unexpected content: " + e.what());
    }
    if (!(r.sample_rate > 0) || !(r.max_frequency_hz > 0))
        throw InputError(quoted(file) +
                         ": ir.sample_rate and settings.max_frequency must be "
                         "positive");
    if (r.pairs.empty()) throw InputError(quoted(file) + " lists no source/receiver pair");
    for (ResultPair& p : r.pairs) {
        if (!fs::exists(p.ir_file, ec))
            throw InputError(quoted(p.ir_file) + " is missing (result.json lists " + p.source +
                             " -> " + p.receiver + ")");
        const audio::Audio a = audio::read_audio(p.ir_file);  // InputError naming the file
        if (a.channels != 1)
            throw InputError(quoted(p.ir_file) + " has " + std::to_string(a.channels) +
                             " channels; an IR of ardent simulate is mono");
        if (a.sample_rate != static_cast<int>(std::lround(r.sample_rate)))
            throw InputError(quoted(p.ir_file) + " is at " + std::to_string(a.sample_rate) +
                             " Hz, not the " + std::to_string(std::lround(r.sample_rate)) +
                             " Hz result.json gives");
        if (a.samples.empty()) throw InputError(quoted(p.ir_file) + " holds no samples");
        p.ir = a.samples;
    }
    return r;
}

std::vector<MinMax> min_max_columns(std::span<const float> x, size_t columns) {
    std::vector<MinMax> out;
    if (x.empty() || columns == 0) return out;
    if (x.size() <= columns) {
        for (float v : x)
            out.push_back({v, v});
        return out;
    }
    const size_t per = (x.size() + columns - 1) / columns;
    for (size_t i = 0; i < x.size(); i += per) {
        const auto part = x.subspan(i, std::min(per, x.size() - i));
        const auto [lo, hi] = std::minmax_element(part.begin(), part.end());
        out.push_back({*lo, *hi});
    }
    return out;
}

Spectrum magnitude_spectrum_db(std::span<const float> ir, double fs, double from_hz, double to_hz,
                               int points_per_octave, double floor_db) {
    Spectrum s;
    if (ir.empty() || !(fs > 0) || points_per_octave < 1) return s;
    size_t n = 1;
    while (n < ir.size())
        n <<= 1;
    const std::vector<double> power = auralize::power_spectrum(ir, n);
    const size_t bins = power.size();
    const double df = fs / static_cast<double>(n);
    const double lo = std::max(from_hz, df), hi = std::min(to_hz, fs / 2);
    if (!(hi > lo)) return s;
    const double ratio = std::pow(2.0, 1.0 / points_per_octave), half = std::sqrt(ratio);
    double peak = 0;
    for (double f = lo; f <= hi * (1 + 1e-9); f *= ratio) {
        // The band [f / half, f * half): bins inside it, or the nearest one.
        const auto k0 = static_cast<size_t>(std::ceil(f / half / df));
        const auto k1 = std::min(bins - 1, static_cast<size_t>(std::floor(f * half / df)));
        double p = 0;
        if (k1 >= k0) {
            for (size_t k = k0; k <= k1; ++k)
                p += power[k];
            p /= static_cast<double>(k1 - k0 + 1);
        } else {
            p = power[std::min(bins - 1, static_cast<size_t>(std::lround(f / df)))];
        }
        s.hz.push_back(f);
        s.db.push_back(p);
        peak = std::max(peak, p);
    }
    const double floor_power = peak * std::pow(10.0, -floor_db / 10);
    for (double& v : s.db)
        v = peak > 0 ? 10 * std::log10(std::max(v, floor_power)) : -floor_db;
    return s;
}

auralize::Analysis analyze_pair(std::span<const float> ir, double fs, double max_frequency_hz,
                                double direct_s) {
    auralize::AnalysisOptions o;
    o.max_frequency_hz = max_frequency_hz > 0 ? 0.8 * max_frequency_hz : 0;
    o.onset_s = direct_s;
    o.keep_decay_curves = true;
    return auralize::analyze_ir(ir, fs, auralize::Bands::Octave, o);
}

}  // namespace ardent::editor
