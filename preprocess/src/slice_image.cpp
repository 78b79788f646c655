#include "ardent/preprocess/slice_image.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <png.h>
#include <unistd.h>

#include "ardent/preprocess/errors.h"

namespace ardent {
namespace {

constexpr std::array<uint8_t, 3> kWall = {70, 70, 76};
constexpr std::array<uint8_t, 3> kAir = {238, 238, 230};
constexpr std::array<uint8_t, 3> kOutline = {30, 30, 30};
constexpr std::array<uint8_t, 3> kSource = {220, 20, 20};
constexpr std::array<uint8_t, 3> kReceiver = {20, 60, 220};

// Kept apart from write_png so no local of the caller lives across libpng's setjmp.
bool encode_png(FILE* f, const RgbImage& image) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    if (!png) return false;
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png)) != 0) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
                 static_cast<png_uint_32>(image.height), 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < image.height; ++y)
        png_write_row(png, image.rgb.data() + static_cast<size_t>(y) * image.width * 3);
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return true;
}

}  // namespace

SliceSpec parse_slice(std::string_view text) {
    const std::string t(text);
    if (t.size() < 3 || t[1] != '=' || (t[0] != 'x' && t[0] != 'y' && t[0] != 'z'))
        throw InputError("--slice \"" + t + "\": expected AXIS=METRES, for example z=1.2");
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(t.c_str() + 2, &end);
    if (end == t.c_str() + 2 || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        throw InputError("--slice \"" + t + "\": \"" + t.substr(2) +
                         "\" is not a number of metres");
    return {t[0] - 'x', v};
}

std::array<uint8_t, 3> material_colour(int material) {
    // Golden-angle hues at fixed saturation and value: neighbours in the list stay distinct.
    const double hue = std::fmod(material * 137.508 + 30.0, 360.0) / 60.0;
    const double s = 0.65, v = 0.85, c = v * s;
    const double x = c * (1 - std::abs(std::fmod(hue, 2.0) - 1));
    double r = 0, g = 0, b = 0;
    switch (static_cast<int>(hue)) {
        case 0:
            r = c, g = x;
            break;
        case 1:
            r = x, g = c;
            break;
        case 2:
            g = c, b = x;
            break;
        case 3:
            g = x, b = c;
            break;
        case 4:
            r = x, b = c;
            break;
        default:
            r = c, b = x;
            break;
    }
    const double m = v - c;
    auto byte = [&](double f) { return static_cast<uint8_t>(std::lround(255 * (f + m))); };
    return {byte(r), byte(g), byte(b)};
}

RgbImage render_slice(const Preprocessed& p, const SliceSpec& slice, int max_pixels) {
    const Grid& g = p.air.grid;
    const int a = slice.axis;
    const int layer = static_cast<int>(std::floor((slice.coordinate - g.origin[a]) / g.h));
    if (layer < 0 || layer >= g.dims[a]) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "--slice %c=%g: outside the model's grid, which spans %c from %.3f to %.3f m",
                      'x' + a, slice.coordinate, 'x' + a, g.origin[a],
                      g.origin[a] + g.dims[a] * g.h);
        throw InputError(buf);
    }
    // Horizontal and vertical image axes: the other two in x, y, z order; vertical points up.
    const int hx = a == 0 ? 1 : 0, vy = a == 2 ? 1 : 2;
    const int nh = g.dims[hx], nv = g.dims[vy];
    const int s = std::max(1, std::min(16, max_pixels / std::max(nh, nv)));
    RgbImage img;
    img.width = nh * s;
    img.height = nv * s;
    img.rgb.assign(static_cast<size_t>(img.width) * img.height * 3, 0);
    auto put = [&](int x, int y, std::array<uint8_t, 3> c) {
        if (x < 0 || y < 0 || x >= img.width || y >= img.height) return;
        const size_t i = (static_cast<size_t>(y) * img.width + x) * 3;
        img.rgb[i] = c[0];
        img.rgb[i + 1] = c[1];
        img.rgb[i + 2] = c[2];
    };
    auto cell_at = [&](int ih, int iv) {
        Index3 c;
        c[a] = layer;
        c[hx] = ih;
        c[vy] = iv;
        return c;
    };
    const auto& owner = p.decomposition.owner;
    for (int iv = 0; iv < nv; ++iv)
        for (int ih = 0; ih < nh; ++ih) {
            const size_t idx = g.index(cell_at(ih, iv));
            std::array<uint8_t, 3> col = kWall;
            if (p.air.air[idx])
                col = p.air.material[idx] >= 0 ? material_colour(p.air.material[idx]) : kAir;
            const int y0 = (nv - 1 - iv) * s;
            for (int dy = 0; dy < s; ++dy)
                for (int dx = 0; dx < s; ++dx)
                    put(ih * s + dx, y0 + dy, col);
            if (owner.empty() || !p.air.air[idx]) continue;
            // Partition outlines: the left and top edges of a cell whose neighbour there is air
            // of another partition (walls are outlined by the colour change itself).
            const int32_t me = owner[idx];
            if (ih > 0) {
                const int32_t o = owner[g.index(cell_at(ih - 1, iv))];
                if (o >= 0 && o != me)
                    for (int dy = 0; dy < s; ++dy)
                        put(ih * s, y0 + dy, kOutline);
            }
            if (iv + 1 < nv) {
                const int32_t o = owner[g.index(cell_at(ih, iv + 1))];
                if (o >= 0 && o != me)
                    for (int dx = 0; dx < s; ++dx)
                        put(ih * s + dx, y0, kOutline);
            }
        }
    auto mark = [&](const PlacedEmitter& e, std::array<uint8_t, 3> col) {
        if (e.cell[a] != layer) return;
        const int cx = e.cell[hx] * s + s / 2, cy = (nv - 1 - e.cell[vy]) * s + s / 2;
        const int r = std::max(3, s);
        for (int dy = -r; dy <= r; ++dy)
            for (int dx = -r; dx <= r; ++dx)
                if (dx * dx + dy * dy <= r * r) put(cx + dx, cy + dy, col);
    };
    for (const auto& e : p.air.sources)
        mark(e, kSource);
    for (const auto& e : p.air.receivers)
        mark(e, kReceiver);
    return img;
}

void write_png(const std::filesystem::path& file, const RgbImage& image, const OutputRules& rules) {
    write_output_file(file, rules, [&](const std::filesystem::path& tmp) {
        FILE* f = std::fopen(tmp.c_str(), "wb");
        if (!f) throw_write_error(file, errno);
        errno = 0;
        bool ok = encode_png(f, image);
        const int err = errno;
        ok = (std::fclose(f) == 0) && ok;
        if (!ok) throw_write_error(file, err ? err : errno, "the PNG");
    });
}

}  // namespace ardent
