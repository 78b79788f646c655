#include "ardent/preprocess/scene_parser.h"

#include "ardent/preprocess/wall_admittance.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/input_file.h"
#include "ardent/preprocess/number_text.h"
#include "ardent/preprocess/wall_admittance.h"

namespace ardent {
namespace {

using Json = nlohmann::ordered_json;

std::string describe(const Json& v) {
    std::string s = v.dump();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    if (v.is_string()) return "the string " + s;
    if (v.is_array()) return "an array " + s;
    if (v.is_object()) return "an object";
    if (v.is_boolean()) return s;
    if (v.is_null()) return "null";
    return s;
}

// Walks the JSON tree carrying the key path for messages.
class Reader {
  public:
    Reader(std::string file, std::string path) : file_(std::move(file)), path_(std::move(path)) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw InputError(file_ + ": " +
                             (path_.empty() ? std::string("(top level)") : printable_text(path_)) +
                             ": " + what,
                         {file_, path_, {}});
    }
    Reader key(const std::string& k) const {
        return Reader(file_, path_.empty() ? k : path_ + "." + k);
    }
    Reader item(size_t i) const { return Reader(file_, path_ + "[" + std::to_string(i) + "]"); }
    const std::string& path() const { return path_; }

    void expect_object(const Json& v) const {
        if (!v.is_object()) fail("expected an object, got " + describe(v));
    }
    // Rejects keys not in `allowed`, suggesting the nearest valid one.
    void check_keys(const Json& v, const std::vector<std::string>& allowed) const {
        expect_object(v);
        for (const auto& [k, _] : v.items()) {
            if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
            std::string msg = "unknown key \"" + k + "\"";
            std::string near = nearest_word(k, allowed);
            if (!near.empty()) msg += " (did you mean \"" + near + "\"?)";
            std::string list;
            for (const auto& a : allowed)
                list += (list.empty() ? "" : ", ") + a;
            key(k).fail(msg + "; valid keys here: " + list);
        }
    }
    double number(const Json& v) const {
        if (!v.is_number()) fail("expected a number, got " + describe(v));
        double d = v.get<double>();
        if (!std::isfinite(d)) fail("expected a finite number, got " + v.dump());
        return d;
    }
    double positive(const Json& v) const {
        double d = number(v);
        if (!(d > 0)) fail("expected a positive number, got " + v.dump());
        return d;
    }
    std::string string(const Json& v) const {
        if (!v.is_string()) fail("expected a string, got " + describe(v));
        return v.get<std::string>();
    }
    std::string choice(const Json& v, const std::vector<std::string>& options) const {
        std::string s = string(v);
        if (std::find(options.begin(), options.end(), s) != options.end()) return s;
        std::string list;
        for (const auto& o : options)
            list += (list.empty() ? "" : ", ") + ("\"" + o + "\"");
        std::string near = nearest_word(s, options);
        fail("expected one of " + list + ", got \"" + s + "\"" +
             (near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
    }
    Vec3 vec3(const Json& v) const {
        if (!v.is_array() || v.size() != 3) fail("expected [x, y, z], got " + describe(v));
        return {item(0).number(v[0]), item(1).number(v[1]), item(2).number(v[2])};
    }

  private:
    std::string file_;
    std::string path_;
};

// Line and column (1-based) of byte `offset` in `text`.
std::string position(std::string_view text, size_t offset) {
    size_t line = 1, col = 1;
    offset = std::min(offset, text.size());
    for (size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return std::to_string(line) + ":" + std::to_string(col);
}

// nlohmann reports the last character of an unexpected token; step back to its first one.
size_t token_start(std::string_view text, size_t at) {
    if (at >= text.size()) return at;
    if (text[at] == '"') {
        for (size_t i = at; i-- > 0;) {
            if (text[i] != '"') continue;
            size_t backslashes = 0;
            while (i > backslashes && text[i - 1 - backslashes] == '\\')
                ++backslashes;
            if (backslashes % 2 == 0) return i;
        }
        return at;
    }
    auto in_word = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-';
    };
    if (!in_word(text[at])) return at;
    while (at > 0 && in_word(text[at - 1]))
        --at;
    return at;
}

// Offset of the first byte that does not belong to a well-formed UTF-8 sequence (overlong forms,
// surrogates and code points past U+10FFFF included), or npos.
size_t first_invalid_utf8(std::string_view text) {
    size_t i = 0;
    while (i < text.size()) {
        const auto b = static_cast<unsigned char>(text[i]);
        size_t n = 0;
        unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
        if (b < 0x80) {
            ++i;
            continue;
        } else if (b >= 0xC2 && b <= 0xDF) {
            n = 1;
        } else if (b >= 0xE0 && b <= 0xEF) {
            n = 2;
            if (b == 0xE0) lo = 0xA0;
            if (b == 0xED) hi = 0x9F;
        } else if (b >= 0xF0 && b <= 0xF4) {
            n = 3;
            if (b == 0xF0) lo = 0x90;
            if (b == 0xF4) hi = 0x8F;
        } else {
            return i;
        }
        if (i + n >= text.size()) return i;  // cut off at the end
        for (size_t k = 1; k <= n; ++k) {
            const auto c = static_cast<unsigned char>(text[i + k]);
            if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return i;
        }
        i += n + 1;
    }
    return std::string_view::npos;
}

// A scene is JSON text in UTF-8. Say so of a file that is not, before the JSON parser's "1:1:
// unexpected end of input" (random bytes), and without echoing its bytes to the terminal.
void check_is_json_text(std::string_view text, const std::string& file) {
    const auto hex = [](unsigned char b) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02X", b);
        return std::string(buf);
    };
    if (text.size() >= 2 &&
        ((text[0] == '\xFF' && text[1] == '\xFE') || (text[0] == '\xFE' && text[1] == '\xFF')))
        throw InputError(file + ": is not UTF-8 text (it is UTF-16); save the scene as UTF-8");
    for (size_t i = 0; i < text.size(); ++i) {
        const auto b = static_cast<unsigned char>(text[i]);
        if (b < 0x20 && b != '\t' && b != '\n' && b != '\r')
            throw InputError(file + ": is not a text file (binary data: byte " + hex(b) + " at " +
                             position(text, i) +
                             "); a scene is ardent-scene/1 JSON text, in UTF-8");
    }
    if (const size_t at = first_invalid_utf8(text); at != std::string_view::npos)
        throw InputError(file + ": is not UTF-8 text: byte " +
                         hex(static_cast<unsigned char>(text[at])) + " at " + position(text, at) +
                         " is not valid UTF-8; save the scene as UTF-8");
    std::string_view body = text;
    if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);  // a UTF-8 byte order mark
    const size_t first = body.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return;
    const auto c = static_cast<unsigned char>(body[first]);
    if (std::string_view("{[\"-0123456789tfn").find(static_cast<char>(c)) ==
        std::string_view::npos) {
        // The whole character (valid UTF-8 by now), not just its first byte.
        const size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        throw InputError(file + ": is not JSON: it starts with '" +
                         std::string(body.substr(first, len)) + "' at " +
                         position(text, first + (text.size() - body.size())) +
                         ", and an ardent-scene/1 scene is a JSON object, starting with '{'");
    }
}

constexpr size_t kMaxJsonDepth = 64;

// Duplicate keys would silently shadow each other; reject them while parsing, naming the key path.
Json parse_json(std::string_view text, const std::string& file) {
    struct Frame {
        bool object = false;
        std::set<std::string> keys;
        std::string key;   // objects: the key being read
        size_t index = 0;  // arrays: the element being read
    };
    check_is_json_text(text, file);
    std::vector<Frame> open;
    std::string duplicate;  // key path of the first key written twice
    auto cb = [&](int, Json::parse_event_t ev, Json& parsed) {
        switch (ev) {
            case Json::parse_event_t::object_start:
            case Json::parse_event_t::array_start:
                // A scene is a few levels deep; 100 000 nested arrays overflowed the stack (a
                // crash, not a message). Stop at kMaxJsonDepth, naming where.
                if (open.size() >= kMaxJsonDepth) {
                    std::string path;
                    for (const Frame& f : open) {
                        if (path.size() > 60) {
                            path += "...";
                            break;
                        }
                        path += f.object ? (path.empty() ? "" : ".") + f.key
                                         : "[" + std::to_string(f.index) + "]";
                    }
                    throw InputError(file + ": " + (path.empty() ? "(top level)" : path) +
                                         ": nested more than " + std::to_string(kMaxJsonDepth) +
                                         " levels deep (a scene needs a few)",
                                     {file, path, {}});
                }
                open.push_back({ev == Json::parse_event_t::object_start, {}, {}, 0});
                break;
            case Json::parse_event_t::object_end:
            case Json::parse_event_t::array_end:
                if (!open.empty()) open.pop_back();
                if (!open.empty() && !open.back().object) ++open.back().index;
                break;
            case Json::parse_event_t::value:
                if (!open.empty() && !open.back().object) ++open.back().index;
                break;
            case Json::parse_event_t::key:
                if (open.empty()) break;
                open.back().key = parsed.get<std::string>();
                if (duplicate.empty() && !open.back().keys.insert(open.back().key).second) {
                    for (const Frame& f : open) {
                        duplicate += f.object ? (duplicate.empty() ? "" : ".") + f.key
                                              : "[" + std::to_string(f.index) + "]";
                    }
                }
                break;
        }
        return true;
    };
    try {
        Json j = Json::parse(text.begin(), text.end(), cb);
        if (!duplicate.empty()) {
            const std::string k = duplicate.substr(duplicate.find_last_of('.') + 1);
            throw InputError(
                file + ": " + duplicate + ": the key \"" + k + "\" is written twice in one object",
                {file, duplicate, {}});
        }
        return j;
    } catch (const Json::parse_error& e) {
        // Position from the byte offset so the message does not depend on nlohmann's wording.
        size_t at = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
        std::string what = e.what();
        auto p = what.find(": ");
        if (p != std::string::npos) what = what.substr(p + 2);
        if (what.find(" - unexpected ") != std::string::npos) at = token_start(text, at);
        // The error points at the first letter of a NaN or Infinity literal (after any sign).
        std::string_view rest = text.substr(at);
        std::string hint;
        for (std::string_view word : {"NaN", "nan", "Infinity", "inf", "Inf"}) {
            if (rest.substr(0, word.size()) == word)
                hint = " (JSON has no NaN or Infinity: write a finite number)";
        }
        throw InputError(file + ":" + position(text, at) + ": JSON syntax error: " + what + hint,
                         {file, {}, {}});
    } catch (const Json::out_of_range& e) {
        // A number too large for a double, e.g. 1e999 (nlohmann says "number overflow parsing
        // '1e999'"); locate the literal for the message.
        std::string what = e.what(), literal;
        const auto q0 = what.find('\''), q1 = what.rfind('\'');
        if (q0 != std::string::npos && q1 > q0) literal = what.substr(q0 + 1, q1 - q0 - 1);
        const size_t at = literal.empty() ? std::string_view::npos : text.find(literal);
        throw InputError(file + (at == std::string_view::npos ? "" : ":" + position(text, at)) +
                         ": the number " + (literal.empty() ? std::string("") : literal + " ") +
                         "is too large (not a finite number): write a finite number");
    }
}

bool valid_object_name(const std::string& s) {
    static const std::regex re("[A-Za-z0-9][A-Za-z0-9_.+-]*");
    return s.size() <= 64 && std::regex_match(s, re);
}

void parse_geometry(const Json& g, const Reader& r, const std::filesystem::path& base,
                    Geometry& out) {
    r.check_keys(g, {"mesh", "box", "scale", "up"});
    const bool has_mesh = g.contains("mesh"), has_box = g.contains("box");
    if (has_mesh == has_box) r.fail("give exactly one of \"mesh\" (a model file) or \"box\"");
    if (has_box) {
        Vec3 b = r.key("box").vec3(g["box"]);
        for (int a = 0; a < 3; ++a) {
            if (!(b[a] > 0))
                r.key("box").item(a).fail("expected a positive size in metres, got " +
                                          Json(b[a]).dump());
        }
        out.box = b;
    } else {
        std::string m = r.key("mesh").string(g["mesh"]);
        if (m.empty()) r.key("mesh").fail("expected a file name, got an empty string");
        std::filesystem::path p(m);
        out.mesh = p.is_absolute() ? p : (base / p).lexically_normal();
    }
    // A box's sizes are metres already; a scale beside one was ignored without a word.
    if (has_box && g.contains("scale"))
        r.key("scale").fail(
            "applies to a mesh file only; a box's sizes are in metres (remove \"scale\", or "
            "give the box in metres)");
    if (g.contains("scale")) out.scale = r.key("scale").positive(g["scale"]);
    if (g.contains("up")) out.up = r.key("up").choice(g["up"], {"x", "y", "z"})[0];
}

// Band centres accepted in a material's absorption (Hz): the audible range.
constexpr double kMinBandHz = 16, kMaxBandHz = 20000;

// The frequency a band key names ("125", "31.5"), or NaN when it is not a plain decimal number:
// digits with at most one decimal point between digits. std::stod alone read "0x10" as 16 Hz and
// "1e3" as 1000.
double band_frequency(const std::string& key) {
    if (key.empty() || key.size() > 16) return std::nan("");
    const size_t point = key.find('.');
    const bool plain =
        key.find_first_not_of("0123456789.") == std::string::npos &&
        (point == std::string::npos ||
         (point > 0 && point + 1 < key.size() && key.find('.', point + 1) == std::string::npos));
    return plain ? std::strtod(key.c_str(), nullptr) : std::nan("");
}

// A material's per-frequency key: one value for every frequency, or an object of bands (centre
// frequency in Hz: value), each read by `value`; the bands ascending.
template <typename T, typename F>
std::vector<std::pair<double, T>> parse_material_bands(const Json& a, const Reader& ra,
                                                       bool& per_band, const char* example,
                                                       F value) {
    std::vector<std::pair<double, T>> bands;
    per_band = a.is_object();
    if (!per_band) {
        bands.push_back({0.0, value(ra, a)});
        return bands;
    }
    if (a.empty())
        ra.fail(std::string("expected at least one band (e.g. \"500\": ") + example +
                ") or one value");
    for (const auto& [band, v] : a.items()) {
        const double hz = band_frequency(band);
        if (!(hz >= kMinBandHz && hz <= kMaxBandHz))
            ra.fail("band \"" + cut_text(band) + "\" is not a frequency in Hz between " +
                    std::to_string(int(kMinBandHz)) + " and " + std::to_string(int(kMaxBandHz)) +
                    " (e.g. \"125\", \"31.5\")");
        for (const auto& b : bands)
            if (std::abs(b.first - hz) < 1e-9 * hz) ra.fail("band \"" + band + "\" is given twice");
        bands.push_back({hz, value(ra.key(band), v)});
    }
    std::sort(bands.begin(), bands.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    return bands;
}

// A material's `scattering`: one coefficient in [0, 1] or an object of bands.
void parse_scattering(const Json& a, const Reader& r, Material& mat) {
    if (!a.is_object() && !a.is_number())
        r.fail("expected a number or an object of bands (centre frequency in Hz: value), got " +
               describe(a));
    const auto bands = parse_material_bands<double>(
        a, r, mat.scattering_per_band, "0.1", [](const Reader& rr, const Json& x) {
            const double s = rr.number(x);
            if (s < 0 || s > 1)
                rr.fail("expected a scattering coefficient between 0 and 1, got " + Json(s).dump());
            return s;
        });
    mat.scattering.clear();
    for (const auto& [hz, s] : bands)
        mat.scattering.push_back({hz, s});
}

void parse_materials(const Json& m, const Reader& r, std::vector<Material>& out) {
    r.expect_object(m);
    for (const auto& [name, v] : m.items()) {
        Reader rm = r.key(name);
        if (name.empty()) rm.fail("a material needs a non-empty name");
        rm.check_keys(v, {"absorption", "normal_absorption", "impedance", "scattering"});
        const int given = static_cast<int>(v.contains("absorption")) +
                          static_cast<int>(v.contains("normal_absorption")) +
                          static_cast<int>(v.contains("impedance"));
        if (given == 0)
            rm.fail(
                "missing key \"absorption\" (or lab data: \"normal_absorption\" or "
                "\"impedance\")");
        if (given > 1)
            rm.fail(
                "give one of \"absorption\", \"normal_absorption\" and \"impedance\", "
                "not several");
        Material mat;
        mat.name = name;
        const auto coefficient = [](const Reader& rr, const Json& x) {
            const double a = rr.number(x);
            if (a < 0 || a > 1)
                rr.fail("expected an absorption coefficient between 0 and 1, got " +
                        Json(a).dump());
            return a;
        };
        const auto not_bands = [](const Reader& rr, const Json& a, const char* what) {
            rr.fail(std::string("expected ") + what +
                    " or an object of bands (centre frequency in Hz: value), got " + describe(a));
        };
        bool per_band = false;
        if (v.contains("absorption")) {
            Reader ra = rm.key("absorption");
            const Json& a = v["absorption"];
            if (!a.is_object() && !a.is_number()) not_bands(ra, a, "a number");
            const auto bands = parse_material_bands<double>(a, ra, per_band, "0.1", coefficient);
            if (per_band) {
                std::vector<AbsorptionBand> ab;
                for (const auto& [hz, alpha] : bands)
                    ab.push_back({hz, alpha});
                mat.set_bands(ab);
            } else {
                mat.set_uniform(bands.front().second);
            }
        } else {
            const bool normal = v.contains("normal_absorption");
            Reader ra = rm.key(normal ? "normal_absorption" : "impedance");
            const Json& a = v[normal ? "normal_absorption" : "impedance"];
            MaterialLabData lab;
            lab.kind =
                normal ? MaterialLabData::Kind::NormalAbsorption : MaterialLabData::Kind::Impedance;
            std::vector<std::pair<double, std::pair<double, double>>> bands;
            if (normal) {
                if (!a.is_object() && !a.is_number()) not_bands(ra, a, "a number");
                bands = parse_material_bands<std::pair<double, double>>(
                    a, ra, per_band, "0.1", [&](const Reader& rr, const Json& x) {
                        return std::pair{coefficient(rr, x), 0.0};
                    });
            } else {
                if (!a.is_object() && !a.is_array()) not_bands(ra, a, "[real, imaginary]");
                bands = parse_material_bands<std::pair<double, double>>(
                    a, ra, per_band, "[2.5, -4]", [](const Reader& rr, const Json& x) {
                        if (!x.is_array() || x.size() != 2)
                            rr.fail(
                                "expected the impedance as [real, imaginary] (normalised by "
                                "rho c), got " +
                                describe(x));
                        const double re = rr.number(x[0]), im = rr.number(x[1]);
                        if (re < 0)
                            rr.fail("the real part is negative (" + Json(re).dump() +
                                    "): such a wall would give energy back, it is not passive");
                        if (re == 0 && im == 0)
                            rr.fail(
                                "an impedance of zero is a pressure-release surface, which "
                                "Ardent does not model");
                        return std::pair{re, im};
                    });
            }
            std::vector<AbsorptionBand> random;
            for (const auto& [hz, val] : bands) {
                lab.hz.push_back(hz);
                lab.value.push_back(val);
                random.push_back({hz, normal ? random_incidence_from_normal(val.first)
                                             : paris_absorption(1.0 / std::complex<double>(
                                                                          val.first, val.second))});
            }
            if (per_band)
                mat.set_bands(random);
            else
                mat.set_uniform(random.front().alpha);
            lab.per_band = per_band;
            mat.lab = lab;
        }
        if (v.contains("scattering")) parse_scattering(v["scattering"], rm.key("scattering"), mat);
        out.push_back(mat);
    }
}

void parse_emitters(const Json& v, const Reader& r, const char* what, std::vector<Emitter>& out,
                    std::set<std::string>& names) {
    if (!v.is_array()) r.fail("expected an array of " + std::string(what) + ", got " + describe(v));
    for (size_t i = 0; i < v.size(); ++i) {
        Reader ri = r.item(i);
        ri.check_keys(v[i], {"name", "position"});
        if (!v[i].contains("name")) ri.fail("missing key \"name\"");
        if (!v[i].contains("position")) ri.fail("missing key \"position\"");
        Emitter e;
        e.name = ri.key("name").string(v[i]["name"]);
        if (!valid_object_name(e.name))
            ri.key("name").fail("\"" + printable_text(cut_text(e.name, 64)) +
                                "\" is not a usable name: use up to 64 letters, digits, '_', "
                                "'-', '.' or '+', starting with a letter or digit (it names "
                                "output files)");
        if (!names.insert(e.name).second)
            ri.key("name").fail("the name \"" + e.name + "\" is used twice");
        e.position = ri.key("position").vec3(v[i]["position"]);
        out.push_back(e);
    }
}

std::string format_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void parse_simulation(const Json& s, const Reader& r, SimulationSettings& out) {
    r.check_keys(s, {"solver", "device", "max_frequency", "duration", "points_per_wavelength",
                     "speed_of_sound", "partition_sides", "band", "crossover"});
    if (s.contains("band")) out.band = r.key("band").choice(s["band"], {"full", "wave"});
    if (s.contains("crossover")) out.crossover_hz = r.key("crossover").positive(s["crossover"]);
    if (s.contains("solver")) out.solver = r.key("solver").choice(s["solver"], {"ard", "fdtd"});
    if (s.contains("partition_sides"))
        out.partition_sides =
            r.key("partition_sides").choice(s["partition_sides"], {"smooth", "power_of_two"});
    if (s.contains("device"))
        out.device = r.key("device").choice(s["device"], {"auto", "cpu", "cuda"});
    if (s.contains("max_frequency"))
        out.max_frequency = r.key("max_frequency").positive(s["max_frequency"]);
    if (s.contains("duration")) out.duration = r.key("duration").positive(s["duration"]);
    if (s.contains("points_per_wavelength")) {
        double p = r.key("points_per_wavelength").positive(s["points_per_wavelength"]);
        // Below 2 points per wavelength max_frequency is above the grid's Nyquist limit.
        if (p < 2)
            r.key("points_per_wavelength")
                .fail("expected at least 2 (the grid's Nyquist limit), got " + Json(p).dump());
        out.points_per_wavelength = p;
    }
    if (s.contains("speed_of_sound")) {
        out.speed_of_sound = r.key("speed_of_sound").positive(s["speed_of_sound"]);
    }
    if (out.duration > 3600) r.key("duration").fail("expected at most 3600 s");
    if (out.crossover_hz && *out.crossover_hz > max_crossover_hz(out.max_frequency))
        r.key("crossover").fail(crossover_problem(*out.crossover_hz, out.max_frequency));
}

void parse_geometric(const Json& g, const Reader& r, GeometricSettings& out) {
    r.check_keys(g, {"rays", "image_source_order"});
    if (g.contains("rays")) {
        const Reader rr = r.key("rays");
        const double n = rr.number(g["rays"]);
        if (!(n >= 100 && n <= 1e8) || n != std::floor(n))
            rr.fail("expected a whole number of rays from 100 to 100000000, got " +
                    g["rays"].dump());
        out.rays = static_cast<size_t>(n);
    }
    if (g.contains("image_source_order")) {
        const Reader ro = r.key("image_source_order");
        const double n = ro.number(g["image_source_order"]);
        if (!(n >= 0 && n <= 8) || n != std::floor(n))
            ro.fail("expected a whole number from 0 to 8, got " + g["image_source_order"].dump());
        out.image_source_order = static_cast<int>(n);
    }
}

// `air`: a number within [lo, hi] (inclusive).
double ranged(const Json& v, const Reader& r, double lo, double hi, const char* unit) {
    const double d = r.number(v);
    if (d < lo || d > hi)
        r.fail("expected " + format_number(lo) + " to " + format_number(hi) + " " + unit +
               ", got " + v.dump());
    return d;
}

void parse_air(const Json& a, const Reader& r, Atmosphere& out) {
    r.check_keys(a, {"temperature", "humidity", "pressure", "absorption"});
    if (a.contains("temperature"))
        out.temperature_c = ranged(a["temperature"], r.key("temperature"), -50, 60, "degrees C");
    if (a.contains("humidity"))
        out.relative_humidity =
            ranged(a["humidity"], r.key("humidity"), 0, 100, "% relative humidity");
    if (a.contains("pressure"))
        out.pressure_kpa = ranged(a["pressure"], r.key("pressure"), 10, 200, "kPa");
    if (a.contains("absorption")) {
        if (!a["absorption"].is_boolean())
            r.key("absorption").fail("expected true or false, got " + describe(a["absorption"]));
        out.absorption = a["absorption"].get<bool>();
    }
}

}  // namespace

std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates) {
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
        for (size_t j = 0; j <= b.size(); ++j)
            prev[j] = j;
        for (size_t i = 1; i <= a.size(); ++i) {
            cur[0] = i;
            for (size_t j = 1; j <= b.size(); ++j) {
                const bool same = std::tolower(a[i - 1]) == std::tolower(b[j - 1]);
                cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
            }
            std::swap(prev, cur);
        }
        return prev[b.size()];
    };
    std::string best;
    size_t best_d = std::string::npos;
    for (const auto& c : candidates) {
        size_t d = distance(word, c);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    // Suggest only when at most about a third of the letters differ.
    if (best_d == std::string::npos || best_d > std::max<size_t>(2, word.size() / 3)) return {};
    return best;
}

Scene parse_scene(std::string_view text, const std::filesystem::path& file) {
    const std::string fname = file.empty() ? "<memory>" : file.string();
    Json j = parse_json(text, fname);
    Reader r(fname, "");
    r.check_keys(j, {"format", "name", "geometry", "materials", "surfaces", "sources", "receivers",
                     "listener_grid", "simulation", "geometric", "air", "output"});
    for (const char* required : {"format", "geometry", "materials", "surfaces", "sources"}) {
        if (!j.contains(required)) r.fail(std::string("missing key \"") + required + "\"");
    }
    Scene sc;
    sc.file = file;
    std::string format = r.key("format").string(j["format"]);
    if (format != "ardent-scene/1")
        r.key("format").fail("expected \"ardent-scene/1\", got \"" + format + "\"");
    sc.name = j.contains("name") ? r.key("name").string(j["name"]) : file.stem().string();

    const std::filesystem::path base = file.empty() ? std::filesystem::current_path()
                                                    : std::filesystem::absolute(file).parent_path();
    parse_geometry(j["geometry"], r.key("geometry"), base, sc.geometry);
    parse_materials(j["materials"], r.key("materials"), sc.materials);
    if (sc.materials.empty()) r.key("materials").fail("define at least one material");

    Reader rs = r.key("surfaces");
    rs.expect_object(j["surfaces"]);
    for (const auto& [pattern, v] : j["surfaces"].items()) {
        std::string mat = rs.key(pattern).string(v);
        if (sc.material_index(mat) < 0) {
            std::vector<std::string> names;
            for (const auto& m : sc.materials)
                names.push_back(m.name);
            std::string near = nearest_word(mat, names);
            rs.key(pattern).fail("material \"" + printable_text(mat) +
                                 "\" is not defined in \"materials\"" +
                                 (near.empty() ? "" : " (did you mean \"" + near + "\"?)"));
        }
        sc.surfaces.push_back({pattern, mat});
    }
    if (sc.surfaces.empty()) rs.fail("map at least one surface pattern (\"*\" maps all)");

    std::set<std::string> names;
    parse_emitters(j["sources"], r.key("sources"), "sources", sc.sources, names);
    if (sc.sources.empty()) r.key("sources").fail("define at least one source");
    if (j.contains("receivers"))
        parse_emitters(j["receivers"], r.key("receivers"), "receivers", sc.receivers, names);

    if (j.contains("listener_grid")) {
        Reader rl = r.key("listener_grid");
        const Json& lg = j["listener_grid"];
        rl.check_keys(lg, {"every", "spacing_m"});
        if (lg.contains("every") && lg.contains("spacing_m"))
            rl.key("spacing_m")
                .fail(
                    "give the grid's step once: \"spacing_m\" (metres) or \"every\" (cells), "
                    "not both");
        if (lg.contains("spacing_m")) {
            const Reader rsp = rl.key("spacing_m");
            const double d = rsp.positive(lg["spacing_m"]);
            if (d > 1000) rsp.fail("expected at most 1000 m, got " + lg["spacing_m"].dump());
            sc.listener_grid_spacing_m = d;
        }
        if (lg.contains("every")) {
            const Json& e = j["listener_grid"]["every"];
            if (!e.is_number_integer() || e.get<long long>() < 1 || e.get<long long>() > 1024)
                rl.key("every").fail("expected a whole number of cells from 1 to 1024, got " +
                                     describe(e));
            sc.listener_grid_every = e.get<int>();
        }
    }
    if (j.contains("simulation"))
        parse_simulation(j["simulation"], r.key("simulation"), sc.simulation);
    if (j.contains("geometric")) parse_geometric(j["geometric"], r.key("geometric"), sc.geometric);
    if (j.contains("air")) {
        parse_air(j["air"], r.key("air"), sc.air);
        // A temperature without an explicit speed of sound sets the speed.
        const bool speed_given = j.contains("simulation") && j["simulation"].is_object() &&
                                 j["simulation"].contains("speed_of_sound");
        if (j["air"].contains("temperature") && !speed_given)
            sc.simulation.speed_of_sound = speed_of_sound_at(sc.air.temperature_c);
    }
    if (j.contains("output")) {
        Reader ro = r.key("output");
        ro.check_keys(j["output"], {"sample_rate"});
        if (j["output"].contains("sample_rate")) {
            const Json& v = j["output"]["sample_rate"];
            if (!v.is_number_integer() || v.get<long long>() < 8000 || v.get<long long>() > 384000)
                ro.key("sample_rate")
                    .fail("expected a whole number of Hz from 8000 to 384000, got " + describe(v));
            sc.output_sample_rate = v.get<int>();
        }
    }
    // Shorter than one output sample, the run wrote IRs of no samples.
    if (sc.simulation.duration * sc.output_sample_rate < 1)
        r.key("simulation")
            .key("duration")
            .fail("expected at least one output sample (1/" +
                  std::to_string(sc.output_sample_rate) +
                  " s = " + format_number(1.0 / sc.output_sample_rate) +
                  " s at output.sample_rate), got " + format_number(sc.simulation.duration) + " s");
    return sc;
}

Scene load_scene(const std::filesystem::path& file) {
    std::error_code ec;
    const ErrorSubject about{file.string(), {}, {}};
    if (const std::string kind = special_file_kind(file); !kind.empty())
        throw InputError(file.string() + ": is " + kind + ", expected a scene file (.json)", about);
    if (!std::filesystem::exists(file, ec))
        throw InputError(file.string() + ": no such scene file", about);
    if (std::filesystem::is_directory(file, ec))
        throw InputError(file.string() + ": is a directory, expected a scene file (.json)", about);
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file.string() + ": cannot be read (permission denied?)", about);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw InputError(file.string() + ": read error", about);
    std::string text = ss.str();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw InputError(file.string() +
                             ": the file is empty, expected an ardent-scene/1 JSON "
                             "object",
                         about);
    return parse_scene(text, file);
}

}  // namespace ardent
