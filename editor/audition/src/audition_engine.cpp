#include "ardent/editor/audition_engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <thread>

#include "ardent/auralize/ambisonics.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/hrtf.h"
#include "ardent/auralize/partitioned_convolver.h"
#include "ardent/auralize/render.h"
#include "ardent/auralize/resample.h"
#include "ardent/pipeline/grid_full_band.h"
#include "ardent/preprocess/errors.h"

namespace ardent::editor {
namespace {

namespace fs = std::filesystem;

std::string quoted(const fs::path& p) {
    return "'" + p.string() + "'";
}

std::string fmt_point(const auralize::Point& p) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "(%.2f, %.2f, %.2f)", p[0], p[1], p[2]);
    return buf;
}

float db_to_gain(double db) {
    return static_cast<float>(std::pow(10.0, db / 20));
}

// A gain moving linearly to its target, reaching it exactly (so that a settled engine's output is
// the plain convolution, bit for bit the same computation as an offline one).
struct Ramp {
    float value = 0, target = 0, step = 1;
    void jump(float v) { value = target = v; }
    // Heads for `t`, arriving after `samples` samples.
    void head_for(float t, double samples) {
        if (t == target) return;
        target = t;
        step =
            static_cast<float>(std::abs(static_cast<double>(t - value)) / std::max(1.0, samples));
    }
    float next() {
        if (value < target)
            value = std::min(target, value + step);
        else if (value > target)
            value = std::max(target, value - step);
        return value;
    }
};

}  // namespace

std::string AuditionIr::describe() const {
    if (kind == Kind::Receiver) return source + " -> " + receiver;
    if (kind == Kind::ReceiverBinaural) return source + " -> " + receiver + ", binaural";
    return source + ", grid point " + std::to_string(grid_point) + " at " + fmt_point(position) +
           (kind == Kind::GridBinaural ? ", binaural" : "") +
           (crossover_hz > 0 ? ", full band (geometric above " +
                                   std::to_string(std::lround(crossover_hz)) + " Hz)"
                             : "");
}

// What render() reads from the GUI's atomics once per block (or an export fixes).
struct AuditionEngine::Controls {
    bool play = false, loop = false, wet = true;
    float level = 1, makeup = 1;
};

// One playback: the convolver and its position in the dry signal, the output FIFO that lets
// render() take any number of frames, and the ramps.
struct AuditionEngine::Voice {
    enum class State { Stopped, Playing, Stopping };
    auralize::PartitionedConvolver conv;
    std::vector<float> in, wet, fifo;  // block; 2 blocks channel-major; 2 blocks interleaved
    size_t fifo_pos = 0;               // next frame of fifo to hand out (block: empty)
    size_t pos = 0;                    // next dry sample
    bool ending = false;               // past the dry signal's end, playing the tail
    size_t tail = 0;                   // tail samples still to play
    size_t ir_len = 0;
    State state = State::Stopped;
    Ramp transport, mix, wet_gain, dry_gain;
};

AuditionEngine::AuditionEngine() : AuditionEngine(Options{}) {}

AuditionEngine::AuditionEngine(Options options) : options_(options) {
    if (options_.sample_rate < auralize::kMinSampleRate ||
        options_.sample_rate > auralize::kMaxSampleRate || options_.block == 0 ||
        options_.fade_blocks == 0)
        throw std::invalid_argument("AuditionEngine: bad options");
    max_ir_ = options_.block;
    live_ = std::make_unique<Voice>();
    prepare_voice(*live_, max_ir_);
}

AuditionEngine::~AuditionEngine() = default;

void AuditionEngine::lock_render() const {
    while (render_busy_.exchange(true, std::memory_order_acquire))
        std::this_thread::yield();
}

void AuditionEngine::unlock_render() const {
    render_busy_.store(false, std::memory_order_release);
}

void AuditionEngine::prepare_voice(Voice& v, size_t max_ir) const {
    const size_t b = options_.block;
    auralize::PartitionedConvolver::Options o;
    o.fade_blocks = options_.fade_blocks;
    v.conv.prepare(max_ir, b, 2, o);
    v.in.assign(b, 0.0f);
    v.wet.assign(2 * b, 0.0f);
    v.fifo.assign(2 * b, 0.0f);
    v.fifo_pos = b;
    v.pos = 0;
    v.ending = false;
    v.tail = 0;
    v.ir_len = 0;
    v.state = Voice::State::Stopped;
    v.transport.jump(0);
}

// ---- dry signal ---------------------------------------------------------------------------------

void AuditionEngine::load_dry(const fs::path& file) {
    const audio::Audio a = audio::read_audio(file);  // InputError naming the file
    auralize::check_audio(a, "dry signal", file);
    set_dry(auralize::mix_to_mono(a), a.sample_rate);
    const std::lock_guard lock(config_mutex_);
    dry_file_ = file;
}

void AuditionEngine::set_dry(std::vector<float> mono, double sample_rate) {
    if (sample_rate != options_.sample_rate)
        mono = audio::resample(std::span<const float>(mono), sample_rate, options_.sample_rate);
    auto dry = std::make_shared<const std::vector<float>>(std::move(mono));
    const std::lock_guard lock(config_mutex_);
    lock_render();
    dry_ = std::move(dry);
    dry_file_.clear();
    live_->pos = 0;
    live_->ending = false;
    unlock_render();
}

bool AuditionEngine::has_dry() const {
    const std::lock_guard lock(config_mutex_);
    return dry_ && !dry_->empty();
}

double AuditionEngine::dry_seconds() const {
    const std::lock_guard lock(config_mutex_);
    return dry_ ? static_cast<double>(dry_->size()) / options_.sample_rate : 0.0;
}

fs::path AuditionEngine::dry_file() const {
    const std::lock_guard lock(config_mutex_);
    return dry_file_;
}

std::vector<float> AuditionEngine::dry() const {
    const std::lock_guard lock(config_mutex_);
    return dry_ ? *dry_ : std::vector<float>{};
}

// ---- results ------------------------------------------------------------------------------------

void AuditionEngine::open_results(const fs::path& dir) {
    ResultsData data = read_results(dir);  // InputError naming the file
    std::vector<std::unique_ptr<auralize::IrGrid>> grids;
    std::vector<std::string> warnings;
    const double fs = options_.sample_rate;
    size_t max_ir = options_.block;
    for (const ResultPair& p : data.pairs)
        max_ir = std::max(max_ir, static_cast<size_t>(std::ceil(static_cast<double>(p.ir.size()) *
                                                                fs / data.sample_rate)) +
                                      1);
    for (const fs::path& g : data.grids) {
        try {
            grids.push_back(std::make_unique<auralize::IrGrid>(g));
            const auralize::IrGrid& grid = *grids.back();
            max_ir =
                std::max(max_ir, static_cast<size_t>(std::ceil(static_cast<double>(grid.samples()) *
                                                               fs / grid.sample_rate())) +
                                     1);
        } catch (const std::exception& e) {
            warnings.push_back(std::string("listener grid left out: ") + e.what());
        }
    }
    const std::lock_guard lock(config_mutex_);
    if (!grids.empty() && !decoder_) {
        try {
            const auralize::HrtfSet hrtf(auralize::HrtfSet::default_file(), fs);
            decoder_ = std::make_unique<auralize::FoaBinauralDecoder>(
                auralize::make_foa_binaural_decoder(hrtf));
        } catch (const std::exception& e) {
            warnings.push_back(std::string("binaural rendering unavailable: ") + e.what());
        }
    }
    if (decoder_ && !grids.empty()) {
        size_t filter = 0;
        for (const auto& acn : decoder_->filters)
            for (const auto& ear : acn)
                filter = std::max(filter, ear.size());
        max_ir += filter;
    }
    lock_render();
    results_ = std::move(data);
    grids_ = std::move(grids);
    warnings_ = std::move(warnings);
    max_ir_ = max_ir;
    current_.reset();
    reset_makeup_ = true;
    try {
        prepare_voice(*live_, max_ir_);
    } catch (...) {
        unlock_render();
        throw;
    }
    unlock_render();
    active_.store(false);
    const ResultPair& first = results_.pairs.front();
    select_receiver(first.source, first.receiver);
}

void AuditionEngine::close_results() {
    const std::lock_guard lock(config_mutex_);
    lock_render();
    results_ = {};
    grids_.clear();
    warnings_.clear();
    current_.reset();
    max_ir_ = options_.block;
    prepare_voice(*live_, max_ir_);
    unlock_render();
    active_.store(false);
}

std::vector<std::string> AuditionEngine::grid_sources() const {
    const std::lock_guard lock(config_mutex_);
    std::vector<std::string> s;
    for (const auto& g : grids_)
        s.push_back(g->source());
    return s;
}

const auralize::IrGrid* AuditionEngine::grid(const std::string& source) const {
    const std::lock_guard lock(config_mutex_);
    for (const auto& g : grids_)
        if (g->source() == source) return g.get();
    return nullptr;
}

AuditionIr AuditionEngine::receiver_ir(const std::string& source, const std::string& receiver,
                                       bool binaural) const {
    const std::lock_guard lock(config_mutex_);
    for (const ResultPair& p : results_.pairs) {
        if (p.source != source || p.receiver != receiver) continue;
        AuditionIr ir;
        ir.kind = AuditionIr::Kind::Receiver;
        ir.source = source;
        ir.receiver = receiver;
        const double fs = options_.sample_rate;
        if (!binaural) {
            ir.ears[0] = audio::resample_ir(std::span<const float>(p.ir), results_.sample_rate, fs);
            ir.ears[1] = ir.ears[0];
            return ir;
        }
        // As `ardent auralize --binaural ambix/<pair>.wav` does, facing +x with +z up (the
        // file's own axes: no turn).
        if (p.ambix_file.empty())
            throw InputError(quoted(results_.dir) + " has no ambisonic IR (ambix/) of " + source +
                             " -> " + receiver + " to render binaurally");
        const audio::Audio a = audio::read_audio(p.ambix_file);  // InputError naming the file
        const int order = a.channels == 4 ? 1 : a.channels == 9 ? 2 : a.channels == 16 ? 3 : 0;
        if (order == 0)
            throw InputError(quoted(p.ambix_file) + " has " + std::to_string(a.channels) +
                             " channels, not an AmbiX order's 4, 9 or 16");
        std::vector<std::vector<float>> channels;
        for (int c = 0; c < a.channels; ++c)
            channels.push_back(
                audio::resample_ir(std::span<const float>(a.channel(c)), a.sample_rate, fs));
        auto& decoder = ambix_decoders_[order];
        if (!decoder)
            decoder = std::make_unique<auralize::AmbisonicBinauralDecoder>(
                auralize::make_binaural_decoder(
                    auralize::HrtfSet(auralize::HrtfSet::default_file(), fs), order));
        ir.ears = auralize::binaural_ir(channels, fs, *decoder);
        ir.kind = AuditionIr::Kind::ReceiverBinaural;
        return ir;
    }
    throw InputError("no impulse response " + source + " -> " + receiver + " in " +
                     quoted(results_.dir));
}

bool AuditionEngine::receiver_binaural_available(const std::string& source,
                                                 const std::string& receiver) const {
    const std::lock_guard lock(config_mutex_);
    std::error_code ec;
    if (!std::filesystem::exists(auralize::HrtfSet::default_file(), ec)) return false;
    for (const ResultPair& p : results_.pairs)
        if (p.source == source && p.receiver == receiver) return !p.ambix_file.empty();
    return false;
}

AuditionIr AuditionEngine::grid_ir(const std::string& source, const auralize::Point& listener,
                                   bool binaural) const {
    const std::lock_guard lock(config_mutex_);  // HDF5 reads one at a time
    const auralize::IrGrid* g = grid(source);
    if (!g)
        throw InputError("source " + source + " has no listener grid in " + quoted(results_.dir));
    AuditionIr ir;
    ir.source = source;
    std::optional<size_t> point = g->nearest(listener);
    if (!point) {
        // Outside the grid (or in a wall): the nearest point of all, so a drag never stalls.
        double best = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < g->size(); ++i) {
            const auto& q = g->positions()[i];
            const double d = (q[0] - listener[0]) * (q[0] - listener[0]) +
                             (q[1] - listener[1]) * (q[1] - listener[1]) +
                             (q[2] - listener[2]) * (q[2] - listener[2]);
            if (d < best) best = d, point = i;
        }
    }
    ir.grid_point = *point;
    ir.position = g->positions()[*point];
    ir.distance_m = std::sqrt((ir.position[0] - listener[0]) * (ir.position[0] - listener[0]) +
                              (ir.position[1] - listener[1]) * (ir.position[1] - listener[1]) +
                              (ir.position[2] - listener[2]) * (ir.position[2] - listener[2]));
    const double fs = options_.sample_rate;
    if (binaural && !decoder_)
        throw InputError("binaural rendering needs the HRTF set " +
                         quoted(auralize::HrtfSet::default_file()) + ", which did not open");
    // As `ardent auralize` does: the points around the listener blended (the nearest alone when
    // the listener is off the grid), resampled, and above a full-band grid's crossover its
    // geometric part, synthesised for that blend.
    const auralize::Point at = g->nearest(listener) ? listener : ir.position;
    auralize::FoaIr foa = auralize::encode_foa_interpolated(*g, at, auralize::Orientation{});
    for (auto& ch : foa.channels)
        ch = audio::resample_ir(std::span<const float>(ch), foa.sample_rate, fs);
    foa.sample_rate = fs;
    ir.crossover_hz = pipeline::join_grid_full_band(*g, foa, auralize::Orientation{});
    if (binaural) {
        ir.ears = auralize::binaural_ir(foa, *decoder_);
        ir.kind = AuditionIr::Kind::GridBinaural;
    } else {
        ir.ears[0] = foa.channels[auralize::kW];
        ir.ears[1] = ir.ears[0];
        ir.kind = AuditionIr::Kind::GridMono;
    }
    return ir;
}

double AuditionEngine::suggested_makeup_db(const AuditionIr& ir) {
    double energy = 0;
    for (const auto& ear : ir.ears)
        for (float v : ear)
            energy += static_cast<double>(v) * static_cast<double>(v);
    energy /= 2;
    if (!(energy > 0)) return 0;
    return std::clamp(-10 * std::log10(energy), -20.0, 60.0);
}

void AuditionEngine::set_ir(const AuditionIr& ir) {
    const std::lock_guard lock(config_mutex_);
    std::array<std::span<const float>, 2> ears;
    for (size_t e = 0; e < 2; ++e)
        ears[e] = std::span<const float>(ir.ears[e]).first(std::min(ir.ears[e].size(), max_ir_));
    live_->conv.set_ir(std::span<const std::span<const float>>(ears));
    if (reset_makeup_ || !current_ || current_->kind != ir.kind) {
        makeup_.store(db_to_gain(suggested_makeup_db(ir)));
        reset_makeup_ = false;
    }
    current_ = ir;
    // The tail the voice plays after the dry signal ends (read by the audio thread per block;
    // a stale value only shortens or lengthens the silence at the very end).
    const size_t len = std::max(ears[0].size(), ears[1].size());
    live_tail_.store(len);
}

std::optional<AuditionIr> AuditionEngine::current_ir() const {
    const std::lock_guard lock(config_mutex_);
    return current_;
}

void AuditionEngine::select_receiver(const std::string& source, const std::string& receiver,
                                     bool binaural) {
    set_ir(receiver_ir(source, receiver, binaural));
}

void AuditionEngine::set_listener(double x, double y, double z, bool binaural,
                                  const std::string& source) {
    std::string s = source;
    if (s.empty()) {
        const std::lock_guard lock(config_mutex_);
        if (current_) s = current_->source;
        if (s.empty() && !grids_.empty()) s = grids_.front()->source();
    }
    set_ir(grid_ir(s, {x, y, z}, binaural));
}

// ---- transport ----------------------------------------------------------------------------------

void AuditionEngine::play() {
    want_play_.store(true);
}
void AuditionEngine::stop() {
    want_play_.store(false);
}
bool AuditionEngine::playing() const {
    return active_.load();
}
void AuditionEngine::set_loop(bool loop) {
    loop_.store(loop);
}
bool AuditionEngine::loop() const {
    return loop_.load();
}
void AuditionEngine::set_wet(bool wet) {
    wet_.store(wet);
}
bool AuditionEngine::wet() const {
    return wet_.load();
}
void AuditionEngine::set_level_db(double db) {
    level_.store(db_to_gain(db));
}
double AuditionEngine::level_db() const {
    return 20 * std::log10(static_cast<double>(level_.load()));
}
void AuditionEngine::set_makeup_db(double db) {
    makeup_.store(db_to_gain(db));
}
double AuditionEngine::makeup_db() const {
    return 20 * std::log10(static_cast<double>(makeup_.load()));
}
double AuditionEngine::position_seconds() const {
    return static_cast<double>(position_.load()) / options_.sample_rate;
}
bool AuditionEngine::fading() const {
    return live_->conv.fading();
}

// ---- rendering ----------------------------------------------------------------------------------

bool AuditionEngine::produce(Voice& v, const std::vector<float>& dry, const Controls& c) const {
    const size_t b = options_.block;
    const double fs = options_.sample_rate;
    const float wet_target = c.level * c.makeup, mix_target = c.wet ? 1.0f : 0.0f;
    if (v.state == Voice::State::Stopped) {
        // Silent: the gains may jump to where they are asked to be.
        v.mix.jump(mix_target);
        v.wet_gain.jump(wet_target);
        v.dry_gain.jump(c.level);
        if (!c.play || dry.empty()) {
            std::fill(v.fifo.begin(), v.fifo.end(), 0.0f);
            v.fifo_pos = 0;
            return false;
        }
        v.state = Voice::State::Playing;
        v.transport.jump(0);
        v.transport.head_for(1, options_.transport_fade_s * fs);
    } else if (v.state == Voice::State::Playing && !c.play) {
        v.state = Voice::State::Stopping;
        v.transport.head_for(0, options_.transport_fade_s * fs);
    }
    v.mix.head_for(mix_target, options_.ab_fade_s * fs);
    v.wet_gain.head_for(wet_target, options_.gain_ramp_s * fs);
    v.dry_gain.head_for(c.level, options_.gain_ramp_s * fs);

    bool ended = false;
    for (size_t i = 0; i < b; ++i) {
        if (!v.ending && v.pos >= dry.size()) {
            if (c.loop && !dry.empty()) {
                v.pos = 0;
            } else {
                v.ending = true;
                v.tail = v.ir_len;
            }
        }
        if (v.ending) {
            v.in[i] = 0;
            if (v.tail > 0) --v.tail;
        } else {
            v.in[i] = dry[v.pos++];
        }
    }
    v.conv.process(v.in, v.wet);
    for (size_t i = 0; i < b; ++i) {
        const float t = v.transport.next(), m = v.mix.next(), gw = v.wet_gain.next(),
                    gd = v.dry_gain.next();
        const float d = (1 - m) * gd * v.in[i];
        v.fifo[2 * i] = t * (m * gw * v.wet[i] + d);
        v.fifo[2 * i + 1] = t * (m * gw * v.wet[b + i] + d);
    }
    v.fifo_pos = 0;
    if (v.ending && v.tail == 0) ended = true;
    if (ended || (v.state == Voice::State::Stopping && v.transport.value == 0)) {
        // Finished or faded out: rewind and forget the history, so the next play starts clean.
        v.state = Voice::State::Stopped;
        v.pos = 0;
        v.ending = false;
        v.conv.reset();
    }
    return ended;
}

void AuditionEngine::render(float* out, size_t frames) {
    if (render_busy_.exchange(true, std::memory_order_acquire)) {
        std::fill(out, out + 2 * frames, 0.0f);
        return;
    }
    Voice& v = *live_;
    static const std::vector<float> kNone;
    const std::vector<float>& dry = dry_ ? *dry_ : kNone;
    const size_t b = options_.block;
    while (frames > 0) {
        if (v.fifo_pos == b) {
            Controls c;
            c.play = want_play_.load(std::memory_order_relaxed);
            c.loop = loop_.load(std::memory_order_relaxed);
            c.wet = wet_.load(std::memory_order_relaxed);
            c.level = level_.load(std::memory_order_relaxed);
            c.makeup = makeup_.load(std::memory_order_relaxed);
            v.ir_len = live_tail_.load(std::memory_order_relaxed);
            if (produce(v, dry, c)) want_play_.store(false);
            active_.store(v.state != Voice::State::Stopped, std::memory_order_relaxed);
            position_.store(v.pos, std::memory_order_relaxed);
        }
        const size_t n = std::min(frames, b - v.fifo_pos);
        std::copy_n(v.fifo.begin() + static_cast<std::ptrdiff_t>(2 * v.fifo_pos), 2 * n, out);
        out += 2 * n;
        frames -= n;
        v.fifo_pos += n;
    }
    render_busy_.store(false, std::memory_order_release);
}

void AuditionEngine::export_wav(const fs::path& file, double seconds) const {
    const std::string where = "cannot write " + quoted(file);
    audio::format_for(file);  // InputError naming the file for an extension it cannot write
    std::error_code ec;
    const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec))
        throw InputError(where + ": its directory " + quoted(parent) + " does not exist");
    if (!std::isfinite(seconds) || seconds > 24 * 3600)
        throw InputError(where + ": the length must be at most a day");

    // A snapshot of what playback uses, then rendering without holding anything.
    std::shared_ptr<const std::vector<float>> dry;
    std::optional<AuditionIr> ir;
    size_t max_ir = 0;
    Controls c;
    {
        const std::lock_guard lock(config_mutex_);
        dry = dry_;
        ir = current_;
        max_ir = max_ir_;
    }
    c.play = true;
    c.loop = seconds > 0 && loop_.load();
    c.wet = wet_.load();
    c.level = level_.load();
    c.makeup = makeup_.load();
    if (!dry || dry->empty()) throw InputError(where + ": no dry signal is loaded");
    if (c.wet && !ir)
        throw InputError(where + ": no impulse response is chosen (open a results directory)");

    Voice v;
    prepare_voice(v, max_ir);
    size_t ir_len = 0;
    if (ir) {
        std::array<std::span<const float>, 2> ears;
        for (size_t e = 0; e < 2; ++e)
            ears[e] =
                std::span<const float>(ir->ears[e]).first(std::min(ir->ears[e].size(), max_ir));
        v.conv.set_ir(std::span<const std::span<const float>>(ears));
        ir_len = std::max(ears[0].size(), ears[1].size());
    }
    v.ir_len = ir_len;
    const size_t frames = seconds > 0
                              ? static_cast<size_t>(std::llround(seconds * options_.sample_rate))
                              : dry->size() + ir_len;
    audio::Audio out;
    out.sample_rate = options_.sample_rate;
    out.channels = 2;
    out.samples.resize(2 * frames);
    const size_t b = options_.block;
    for (size_t f = 0; f < frames;) {
        // After the end (no loop) playback stays stopped, as it does live.
        if (v.fifo_pos == b && produce(v, *dry, c)) c.play = false;
        const size_t n = std::min(frames - f, b - v.fifo_pos);
        std::copy_n(v.fifo.begin() + static_cast<std::ptrdiff_t>(2 * v.fifo_pos), 2 * n,
                    out.samples.begin() + static_cast<std::ptrdiff_t>(2 * f));
        f += n;
        v.fifo_pos += n;
    }
    audio::write_audio(file, out, audio::WriteMode::Atomic);
}

}  // namespace ardent::editor
