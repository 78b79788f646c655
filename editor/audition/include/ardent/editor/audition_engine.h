// The editor's audition engine (issue 7, item 5), free of Qt so that it can be tested without a
// sound card: a dry recording (any file libsndfile reads, mixed to mono and resampled to the
// output rate) played through the room by auralize::PartitionedConvolver, with an impulse
// response taken from a receiver WAV of a results directory or from any point of its listener
// grid, mono or binaural (first-order ambisonics from the grid's gradient, decoded through the
// default HRTF set exactly as `ardent auralize` does). Listener moves and IR changes cross-fade
// in the convolver; the dry/wet A/B switch, play/stop and level changes are ramped, so nothing
// clicks. render() is the audio thread's call: no allocation, no locks, no system calls.
// export_wav() renders the same thing offline, through the same code, into a float WAV.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ardent/auralize/binaural.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/editor/results_data.h"

namespace ardent::editor {

// An impulse response ready for the convolver: two channels at the engine's rate (the same one
// twice for a mono IR).
struct AuditionIr {
    enum class Kind { Receiver, ReceiverBinaural, GridMono, GridBinaural };
    Kind kind = Kind::Receiver;
    std::array<std::vector<float>, 2> ears;
    std::string source, receiver;  // receiver: empty for a grid IR
    size_t grid_point = 0;         // grid IRs: the point used, its position, and how far the
    auralize::Point position{};    // listener asked for was from it
    double distance_m = 0;
    double crossover_hz = 0;       // grid IRs of a full-band run: geometric acoustics above this
    std::string describe() const;  // "S1 -> R1", "S1, grid point 12 at (1.00, 2.00, 1.20)"
};

class AuditionEngine {
  public:
    struct Options {
        int sample_rate = 48000;
        size_t block = 128;               // the convolver's block (samples)
        size_t fade_blocks = 4;           // IR cross-fade, in blocks (about 11 ms at 128 / 48 kHz)
        double ab_fade_s = 0.030;         // dry/wet cross-fade
        double transport_fade_s = 0.005;  // fade in on play, out on stop
        double gain_ramp_s = 0.010;       // level and make-up changes
    };

    explicit AuditionEngine(Options options);
    AuditionEngine();
    ~AuditionEngine();
    AuditionEngine(const AuditionEngine&) = delete;
    AuditionEngine& operator=(const AuditionEngine&) = delete;

    int sample_rate() const { return options_.sample_rate; }
    const Options& options() const { return options_; }

    // ---- inputs (GUI or worker thread; each may wait for one render() call to finish) --------
    // Reads a dry recording, mixes it to mono and resamples it. InputError naming the file when
    // it cannot be read or is not usable audio; the previous dry signal then stays. Playback
    // restarts from its beginning.
    void load_dry(const std::filesystem::path& file);
    void set_dry(std::vector<float> mono, double sample_rate);
    bool has_dry() const;
    double dry_seconds() const;
    std::filesystem::path dry_file() const;
    // The dry signal at the engine's rate (for tests).
    std::vector<float> dry() const;

    // Opens a results directory of `ardent simulate` (result.json, the receiver IRs and the
    // listener grids; InputError naming the file at fault, the previous results then stay) and
    // plays its first receiver. Grids that cannot be opened are left out with a warning.
    void open_results(const std::filesystem::path& dir);
    void close_results();
    const ResultsData& results() const { return results_; }
    bool has_results() const { return !results_.pairs.empty(); }
    // Sources with a listener grid, and warnings from opening (an unreadable grid, no HRTF set).
    std::vector<std::string> grid_sources() const;
    const std::vector<std::string>& warnings() const { return warnings_; }
    // The grid of a source (nullptr when it has none): bounds and spacing for the panel.
    const auralize::IrGrid* grid(const std::string& source) const;
    bool binaural_available() const { return decoder_ != nullptr; }

    // IRs at the engine's rate. Thread-safe (serialised); InputError for an unknown pair or
    // source, or when the grid has no gradient for binaural rendering.
    // Binaural: the pair's AmbiX IR (ambix/, first to third order) decoded as `ardent auralize
    // --binaural` does, facing +x, up +z; InputError when the results have none.
    AuditionIr receiver_ir(const std::string& source, const std::string& receiver,
                           bool binaural = false) const;
    // The grid point nearest `listener` (the nearest of all when none lies within a grid
    // spacing), mono or binaural (facing +x, up +z, like `ardent auralize`'s defaults).
    AuditionIr grid_ir(const std::string& source, const auralize::Point& listener,
                       bool binaural) const;
    // Hands an IR to the convolver (cross-faded from the current one). The first IR after
    // open_results, and any IR of another kind than the current one, also sets the make-up gain
    // (suggested_makeup_db), so that listener moves keep their level differences.
    void set_ir(const AuditionIr& ir);
    std::optional<AuditionIr> current_ir() const;

    // Shorthands: the IR computed and set in one call.
    void select_receiver(const std::string& source, const std::string& receiver,
                         bool binaural = false);
    // Whether the pair has an AmbiX IR to render binaurally.
    bool receiver_binaural_available(const std::string& source, const std::string& receiver) const;
    // Grid IR of `source` (default: the current IR's source) at (x, y, z), binaural or not.
    void set_listener(double x, double y, double z, bool binaural = false,
                      const std::string& source = {});

    // ---- transport and levels (any thread, never waits) --------------------------------------
    void play();
    void stop();  // fades out, then rewinds
    bool playing() const;
    void set_loop(bool loop);
    bool loop() const;
    void set_wet(bool wet);  // A/B: the room (true) or the dry signal (false)
    bool wet() const;
    void set_level_db(double db);  // on both dry and wet
    double level_db() const;
    // Gain on the wet signal only. The IR convention puts a receiver a few metres from the
    // source about 20 dB below the dry signal; the make-up brings the wet back to the dry's level.
    void set_makeup_db(double db);
    double makeup_db() const;
    // The gain that makes the IR's energy (mean of both ears) 1: white noise through it keeps its
    // level. Clamped to [-20, 60] dB.
    static double suggested_makeup_db(const AuditionIr& ir);
    double position_seconds() const;

    // ---- the audio thread --------------------------------------------------------------------
    // Writes `frames` interleaved stereo frames. Silence when stopped, or in the rare call that
    // overlaps a reconfiguration (load_dry, open_results) instead of waiting for it.
    void render(float* interleaved_stereo, size_t frames);

    // Renders offline what playback from the start would produce with the current dry signal,
    // IR, A/B setting, loop and levels (a second voice of this engine, so live playback is not
    // disturbed), and writes it as a stereo float WAV (or 24-bit FLAC by the extension),
    // atomically, replacing the file: the caller asks the user first. seconds > 0: that long
    // (looping when loop is on); otherwise the whole dry signal and the IR's tail. InputError
    // naming the file when there is no dry signal, no IR for the wet signal, or the file cannot
    // be written; nothing is written then.
    void export_wav(const std::filesystem::path& file, double seconds = 0) const;

    // For tests: a convolver cross-fade is running.
    bool fading() const;

  private:
    struct Voice;
    struct Controls;
    void prepare_voice(Voice& v, size_t max_ir) const;
    // One block of output into v's FIFO; true when playback reached its end (no loop).
    bool produce(Voice& v, const std::vector<float>& dry, const Controls& c) const;
    void lock_render() const;
    void unlock_render() const;

    Options options_;
    // Reconfiguration: a flag the audio thread only tries (never waits for), held by the GUI
    // thread while it swaps the dry signal or re-prepares the convolver.
    mutable std::atomic<bool> render_busy_{false};
    // Serialises everything but render() and the transport (IR computation, grid reads).
    mutable std::recursive_mutex config_mutex_;

    std::shared_ptr<const std::vector<float>> dry_;
    std::filesystem::path dry_file_;
    ResultsData results_;
    std::vector<std::unique_ptr<auralize::IrGrid>> grids_;
    std::vector<std::string> warnings_;
    std::unique_ptr<auralize::FoaBinauralDecoder> decoder_;
    // The receivers' AmbiX decoders, per order, made when first needed.
    mutable std::map<int, std::unique_ptr<auralize::AmbisonicBinauralDecoder>> ambix_decoders_;
    size_t max_ir_ = 0;
    bool reset_makeup_ = true;
    std::optional<AuditionIr> current_;

    std::unique_ptr<Voice> live_;
    std::atomic<bool> want_play_{false}, loop_{false}, wet_{true};
    std::atomic<bool> active_{false};  // the audio thread is playing (or fading out)
    std::atomic<float> level_{1.0f}, makeup_{1.0f};
    std::atomic<size_t> position_{0};
    std::atomic<size_t> live_tail_{0};  // the current IR's length: the tail after the dry ends
};

}  // namespace ardent::editor
