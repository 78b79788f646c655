// The audition engine without a sound card: a dry file through a results directory of the real
// `ardent simulate` into render()'s buffers, against the offline convolution of the same signals;
// listener moves and the A/B switch without discontinuities; binaural output; export against
// render; bad inputs; and render()'s cost, allocations and locks.
#include <dlfcn.h>
#include <pthread.h>

// Before Qt: fft_convolution.h names a parameter `signals`, which Qt defines as a keyword.
#include "ardent/auralize/fft_convolution.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <thread>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/filter_bank.h"
#include "ardent/auralize/hrtf.h"
#include "ardent/editor/audition_engine.h"
#include "ardent/preprocess/errors.h"
#include "results_fixture.h"

// Allocations and lock calls made by this thread while `counting` is set (render() must make
// none): the global operator new and this executable's pthread_mutex_lock / trylock wrap the
// library's.
namespace {
thread_local bool counting = false;
thread_local size_t allocations = 0, locks = 0;

template <typename Fn>
Fn real_symbol(const char* name) {
    return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}
}  // namespace

extern "C" int pthread_mutex_lock(pthread_mutex_t* m) noexcept {
    if (counting) ++locks;
    static const auto real = real_symbol<int (*)(pthread_mutex_t*)>("pthread_mutex_lock");
    return real(m);
}
extern "C" int pthread_mutex_trylock(pthread_mutex_t* m) noexcept {
    if (counting) ++locks;
    static const auto real = real_symbol<int (*)(pthread_mutex_t*)>("pthread_mutex_trylock");
    return real(m);
}
void* operator new(size_t n) {
    if (counting) ++allocations;
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, size_t) noexcept {
    std::free(p);
}
#pragma GCC diagnostic pop

using ardent::editor::AuditionEngine;
using ardent::editor::AuditionIr;

namespace {

const char* kDry = ARDENT_SOURCE_DIR "/data/audio/openair-singing-anechoic-48k.wav";

// render() in uneven chunks (as an audio device asks), `frames` frames of interleaved stereo.
std::vector<float> render(AuditionEngine& e, size_t frames) {
    static const size_t chunks[] = {100, 37, 512, 128, 1, 441, 256};
    std::vector<float> out(2 * frames);
    size_t done = 0, i = 0;
    while (done < frames) {
        const size_t n = std::min(chunks[i++ % 7], frames - done);
        e.render(out.data() + 2 * done, n);
        done += n;
    }
    return out;
}

std::vector<float> channel(const std::vector<float>& interleaved, int c) {
    std::vector<float> v(interleaved.size() / 2);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = interleaved[2 * i + static_cast<size_t>(c)];
    return v;
}

std::vector<float> scaled(std::vector<float> v, double db) {
    const auto g = static_cast<float>(std::pow(10.0, db / 20));
    for (float& x : v)
        x *= g;
    return v;
}

// The largest |a - b| over [from, to), and the largest |b| there.
std::pair<double, double> max_error(const std::vector<float>& a, const std::vector<float>& b,
                                    size_t from, size_t to) {
    double err = 0, peak = 0;
    for (size_t i = from; i < to; ++i) {
        err = std::max(err, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
        peak = std::max(peak, std::abs(static_cast<double>(b[i])));
    }
    return {err, peak};
}

double max_step(const std::vector<float>& x, size_t from, size_t to) {
    double m = 0;
    for (size_t i = from + 1; i < to; ++i)
        m = std::max(m, std::abs(static_cast<double>(x[i]) - static_cast<double>(x[i - 1])));
    return m;
}

double rms(const std::vector<float>& x, size_t from, size_t to) {
    double s = 0;
    for (size_t i = from; i < to; ++i)
        s += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    return std::sqrt(s / static_cast<double>(to - from));
}

}  // namespace

class TestAuditionEngine : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        QString log;
        results_ = ardent::test::make_small_results(tmp_, &log).toStdString();
        QVERIFY2(!results_.empty(), qPrintable("ardent simulate failed: " + log));
    }

    // File -> engine -> buffer: after the 5 ms fade-in, render() gives the offline convolution
    // of the same dry signal and IR (times the make-up gain) on both channels.
    void fileToBufferEqualsOfflineConvolution() {
        AuditionEngine e;
        e.load_dry(kDry);
        QCOMPARE(e.dry_file().string(), std::string(kDry));
        e.open_results(results_);
        QVERIFY(e.current_ir());
        QCOMPARE(e.current_ir()->receiver, std::string("R1"));
        const double makeup = e.makeup_db();
        qInfo("make-up gain for S1 -> R1: %+.1f dB", makeup);
        QVERIFY(makeup > 5 && makeup < 50);  // the wet is well below the dry
        e.play();
        const size_t n = 48000;
        const std::vector<float> out = render(e, n);
        QVERIFY(e.playing());
        const AuditionIr ir = *e.current_ir();
        const std::vector<float> expected =
            scaled(ardent::auralize::convolve(e.dry(), ir.ears[0]), makeup);
        const size_t fade = 256;  // 5 ms at 48 kHz, rounded up
        for (int c = 0; c < 2; ++c) {
            const auto [err, peak] = max_error(channel(out, c), expected, fade, n);
            qInfo("channel %d: max error %.2e re peak %.2e (%.1f dB)", c, err, peak,
                  20 * std::log10(err / peak));
            QVERIFY(peak > 0);
            QVERIFY2(err < 1e-5 * peak, qPrintable(QString::number(err / peak)));
        }
        // The fade-in starts from silence.
        QVERIFY(std::abs(out[0]) < 1e-6f);
    }

    // A listener move changes the IR with a cross-fade: the output leaves the old convolution,
    // lands on the new one, and no step between samples exceeds what the two signals have.
    void listenerMoveCrossFadesWithoutDiscontinuity() {
        AuditionEngine e;
        e.load_dry(kDry);
        e.open_results(results_);
        const auto* grid = e.grid("S1");
        QVERIFY(grid);
        QVERIFY(grid->size() >= 2);
        // Two grid points about two grid steps apart.
        const auto lo = grid->lower(), hi = grid->upper();
        const ardent::auralize::Point p1 = lo, p2 = hi;
        e.set_listener(p1[0], p1[1], p1[2]);
        const AuditionIr ir1 = *e.current_ir();
        QCOMPARE(ir1.kind, AuditionIr::Kind::GridMono);
        const double makeup = e.makeup_db();
        e.play();
        const size_t before = 24000, after = 48000;
        std::vector<float> out = render(e, before);
        e.set_listener(p2[0], p2[1], p2[2]);
        const AuditionIr ir2 = *e.current_ir();
        QVERIFY(ir2.grid_point != ir1.grid_point);
        QCOMPARE(e.makeup_db(), makeup);  // moves keep the level differences
        const std::vector<float> rest = render(e, after);
        out.insert(out.end(), rest.begin(), rest.end());
        const std::vector<float> y1 =
            scaled(ardent::auralize::convolve(e.dry(), ir1.ears[0]), makeup);
        const std::vector<float> y2 =
            scaled(ardent::auralize::convolve(e.dry(), ir2.ears[0]), makeup);
        const std::vector<float> left = channel(out, 0);
        // Before the move: the old IR.
        auto [err, peak] = max_error(left, y1, 256, before);
        QVERIFY2(err < 1e-5 * peak, qPrintable(QString::number(err / peak)));
        // Long after it (the tail stages follow within a few of their partitions): the new one.
        std::tie(err, peak) = max_error(left, y2, before + after - 9600, before + after);
        QVERIFY2(err < 1e-5 * peak, qPrintable(QString::number(err / peak)));
        {
            std::vector<float> d(y1.size());
            for (size_t i = 0; i < d.size(); ++i)
                d[i] = y1[i] - y2[i];
            QVERIFY2(rms(d, before, before + after) > 0.05 * rms(y1, before, before + after),
                     "the two grid points should sound different");
        }
        // Around the move: steps within those of the two signals plus what a linear fade of
        // 4 blocks adds (the difference of the signals over its length).
        const size_t from = before - 1024, to = before + 24000;
        const double fade_len = 4 * 128;
        double ymax = 0;
        for (size_t i = from; i < to; ++i)
            ymax = std::max(
                {ymax, std::abs(static_cast<double>(y1[i])), std::abs(static_cast<double>(y2[i]))});
        const double bound =
            std::max(max_step(y1, from, to), max_step(y2, from, to)) + 2 * ymax / fade_len;
        const double step = max_step(left, from, to);
        qInfo("listener move: largest step %.3e, bound %.3e", step, bound);
        QVERIFY(step <= bound);
    }

    // A/B: after the 30 ms cross-fade the output is the dry signal itself; the switch is smooth.
    void dryWetSwitchCrossFades() {
        AuditionEngine e;
        e.load_dry(kDry);
        e.open_results(results_);
        const double makeup = e.makeup_db();
        e.play();
        const size_t before = 24000, after = 24000;
        std::vector<float> out = render(e, before);
        e.set_wet(false);
        QVERIFY(!e.wet());
        const std::vector<float> rest = render(e, after);
        out.insert(out.end(), rest.begin(), rest.end());
        const std::vector<float> dry = e.dry();
        const std::vector<float> wet =
            scaled(ardent::auralize::convolve(dry, e.current_ir()->ears[0]), makeup);
        for (int c = 0; c < 2; ++c) {
            const std::vector<float> x = channel(out, c);
            // The switch is read at the next block boundary: within 128 + 1440 samples it is done.
            for (size_t i = before + 128 + 1440; i < before + after; ++i)
                QCOMPARE(x[i], dry[i]);
            const size_t from = before - 256, to = before + 2048;
            double ymax = 0;
            for (size_t i = from; i < to; ++i)
                ymax = std::max({ymax, std::abs(static_cast<double>(dry[i])),
                                 std::abs(static_cast<double>(wet[i]))});
            const double bound =
                std::max(max_step(dry, from, to), max_step(wet, from, to)) + 2 * ymax / 1440;
            QVERIFY(max_step(x, from, to) <= bound);
        }
        // Stop fades out (5 ms), then silence.
        e.stop();
        const std::vector<float> tail = render(e, 1024);
        for (size_t i = 2 * 512; i < tail.size(); ++i)
            QCOMPARE(tail[i], 0.0f);
        QVERIFY(!e.playing());
    }

    // The fixture's run is full band (500 Hz wave solver): at a grid point the audition hears
    // the grid's geometric part above the crossover, joined as `ardent auralize` joins it, so
    // the 4 kHz octave carries sound (a wave-band grid has nothing there: 70 dB and more down).
    void gridAuditionIsFullBand() {
        AuditionEngine e;
        e.open_results(results_);
        const auto* grid = e.grid("S1");
        QVERIFY(grid && grid->geometric());
        const auto c = grid->positions()[grid->size() / 2];
        e.set_listener(c[0], c[1], c[2]);
        const AuditionIr ir = *e.current_ir();
        QVERIFY(ir.crossover_hz > 0);
        QVERIFY(ir.describe().find("full band") != std::string::npos);
        const auto band_db = [&](double hz) {
            const auto band = ardent::auralize::design_band(hz, 1, 48000);
            const auto y = ardent::auralize::band_signal(band, ir.ears[0],
                                                         ardent::auralize::Direction::Forward);
            double e2 = 0;
            for (double v : y)
                e2 += v * v;
            return 10 * std::log10(e2);
        };
        const double low = band_db(250), high = band_db(4000);
        qInfo("grid point %zu: 4 kHz octave %+.1f dB re the 250 Hz octave (%s)", ir.grid_point,
              high - low, ir.describe().c_str());
        QVERIFY(high - low > -30);
    }

    // At a receiver, binaural: its AmbiX IR (the fixture's run is full band: third order above
    // the crossover) decoded as `ardent auralize --binaural` decodes it: the ears equal that
    // command's rendering of an impulse through the same file, sample for sample.
    void receiverBinauralIsTheCommandsRendering() {
        AuditionEngine e;
        e.open_results(results_);
        if (!std::filesystem::exists(ardent::auralize::HrtfSet::default_file()))
            QSKIP("no default SOFA set (Debian package libmysofa1)");
        QVERIFY(e.receiver_binaural_available("S1", "R1"));
        const AuditionIr ir = e.receiver_ir("S1", "R1", true);
        QCOMPARE(ir.kind, AuditionIr::Kind::ReceiverBinaural);
        QVERIFY(ir.describe().find("binaural") != std::string::npos);
        const QString dir = tmp_.filePath("receiver-binaural");
        QVERIFY(QDir().mkpath(dir));
        std::vector<float> impulse(4800, 0.0f);
        impulse[0] = 1;
        ardent::audio::write_wav_float((dir + "/impulse.wav").toStdString(), impulse, 48000);
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(ARDENT_CLI, {"auralize", dir + "/impulse.wav",
                             QString::fromStdString(results_) + "/ambix/S1_R1.wav", "--binaural",
                             "--normalize", "none", "-o", dir + "/b.wav"});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAll().constData());
        const auto b = ardent::audio::read_audio((dir + "/b.wav").toStdString());
        QCOMPARE(b.channels, 2);
        double err = 0, ref = 0;
        for (int ear = 0; ear < 2; ++ear) {
            const auto want = b.channel(ear);
            const auto& got = ir.ears[static_cast<size_t>(ear)];
            for (size_t k = 0; k < std::min(want.size(), got.size()); ++k) {
                err += (double(got[k]) - double(want[k])) * (double(got[k]) - double(want[k]));
                ref += double(want[k]) * double(want[k]);
            }
        }
        qInfo("receiver binaural vs ardent auralize --binaural: relative L2 %.2e",
              std::sqrt(err / ref));
        QVERIFY(ref > 0);
        QVERIFY(std::sqrt(err / ref) < 1e-5);
        // The source (1, 1, 1.2) is behind and to the right of R1 (3, 2, 1.2) facing +x.
        double left = 0, right = 0;
        for (size_t k = 0; k < ir.ears[0].size(); ++k) {
            left += double(ir.ears[0][k]) * double(ir.ears[0][k]);
            right += double(ir.ears[1][k]) * double(ir.ears[1][k]);
        }
        qInfo("ears: right %.1f dB re left", 10 * std::log10(right / left));
        QVERIFY(right > left);
    }

    // Binaural: two different ears, each the offline convolution with its ear's IR.
    void binauralGivesTwoDifferentChannels() {
        AuditionEngine e;
        e.load_dry(kDry);
        e.open_results(results_);
        QVERIFY2(e.binaural_available(), e.warnings().empty() ? "" : e.warnings()[0].c_str());
        const auto* grid = e.grid("S1");
        const auto c = grid->positions()[grid->size() / 2];
        e.set_listener(c[0], c[1], c[2], true);
        const AuditionIr ir = *e.current_ir();
        QCOMPARE(ir.kind, AuditionIr::Kind::GridBinaural);
        e.play();
        const size_t n = 36000;
        const std::vector<float> out = render(e, n);
        const std::vector<float> l = channel(out, 0), r = channel(out, 1);
        std::vector<float> d(n);
        for (size_t i = 0; i < n; ++i)
            d[i] = l[i] - r[i];
        QVERIFY(rms(d, 256, n) > 0.05 * rms(l, 256, n));
        for (int ear = 0; ear < 2; ++ear) {
            const std::vector<float> y =
                scaled(ardent::auralize::convolve(e.dry(), ir.ears[static_cast<size_t>(ear)]),
                       e.makeup_db());
            const auto [err, peak] = max_error(ear == 0 ? l : r, y, 256, n);
            QVERIFY2(err < 1e-5 * peak, qPrintable(QString::number(err / peak)));
        }
    }

    // export_wav renders what playback renders, and with no length the dry signal plus the tail.
    void exportMatchesRender() {
        AuditionEngine e;
        e.load_dry(kDry);
        e.open_results(results_);
        e.set_level_db(-6);
        e.play();
        const size_t n = 2 * 48000;
        const std::vector<float> live = render(e, n);
        QTemporaryDir out;
        const std::string file = out.filePath("export.wav").toStdString();
        e.export_wav(file, 2.0);
        const ardent::audio::Audio a = ardent::audio::read_audio(file);
        QCOMPARE(a.channels, 2);
        QCOMPARE(a.sample_rate, 48000);
        QCOMPARE(a.samples.size(), live.size());
        const auto [err, peak] = max_error(a.samples, live, 0, live.size());
        qInfo("export vs render: max difference %.2e re peak %.2e", err, peak);
        QVERIFY(err <= 1e-6 * peak);

        const std::string whole = out.filePath("whole.wav").toStdString();
        e.export_wav(whole, 0);
        const ardent::audio::Audio w = ardent::audio::read_audio(whole);
        QCOMPARE(w.frames(), e.dry().size() + e.current_ir()->ears[0].size());
        QCOMPARE(QDir(out.path()).entryList(QDir::Files), (QStringList{"export.wav", "whole.wav"}));
    }

    // Bad inputs: a message naming the file, the previous state kept, nothing written.
    void badInputs() {
        AuditionEngine e;
        QTemporaryDir dir;
        const std::string missing = dir.filePath("no-results").toStdString();
        try {
            e.open_results(missing);
            QFAIL("no error for a missing results directory");
        } catch (const ardent::InputError& ex) {
            QVERIFY2(std::string(ex.what()).find(missing) != std::string::npos, ex.what());
        }
        const QString text = dir.filePath("notes.wav");
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not audio at all");
        f.close();
        e.load_dry(kDry);
        const size_t dry_len = e.dry().size();
        try {
            e.load_dry(text.toStdString());
            QFAIL("no error for a dry file that is not audio");
        } catch (const ardent::InputError& ex) {
            QVERIFY2(std::string(ex.what()).find(text.toStdString()) != std::string::npos,
                     ex.what());
        }
        QCOMPARE(e.dry().size(), dry_len);  // the previous dry signal stays

        const std::string target = dir.filePath("out.wav").toStdString();
        // Wet but no IR.
        try {
            e.export_wav(target, 1.0);
            QFAIL("no error exporting without an IR");
        } catch (const ardent::InputError& ex) {
            QVERIFY2(std::string(ex.what()).find(target) != std::string::npos, ex.what());
        }
        // No directory; an extension it cannot write.
        const std::string nowhere = dir.filePath("missing/out.wav").toStdString();
        QVERIFY_THROWS_EXCEPTION(ardent::InputError, e.export_wav(nowhere, 1.0));
        QVERIFY_THROWS_EXCEPTION(ardent::InputError,
                                 e.export_wav(dir.filePath("out.mp3").toStdString(), 1.0));
        // No dry signal.
        AuditionEngine empty;
        empty.open_results(results_);
        try {
            empty.export_wav(target, 1.0);
            QFAIL("no error exporting without a dry signal");
        } catch (const ardent::InputError& ex) {
            QVERIFY2(std::string(ex.what()).find("no dry signal") != std::string::npos, ex.what());
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"notes.wav"});
    }

    // render() allocates nothing and takes no lock, while IRs change from another thread; and
    // what a 128-sample block costs with a 0.3 s and a 3 s binaural-sized (two-channel) IR.
    void renderIsRealTimeSafeAndCheap() {
        AuditionEngine e;
        e.load_dry(kDry);
        e.open_results(results_);
        e.set_loop(true);
        e.play();
        std::vector<float> buf(2 * 128);
        for (int i = 0; i < 100; ++i)
            e.render(buf.data(), 128);  // warm up
        const auto* grid = e.grid("S1");
        std::atomic<bool> done{false};
        std::thread mover([&] {
            for (size_t k = 0; !done.load(); ++k) {
                const auto p = grid->positions()[k % grid->size()];
                e.set_listener(p[0], p[1], p[2], k % 2 == 1);
            }
        });
        counting = true;
        QElapsedTimer t;
        t.start();
        const int blocks = 4000;
        for (int i = 0; i < blocks; ++i)
            e.render(buf.data(), 128);
        const double us = static_cast<double>(t.nsecsElapsed()) / 1e3 / blocks;
        counting = false;
        done = true;
        mover.join();
        QCOMPARE(allocations, size_t{0});
        QCOMPARE(locks, size_t{0});
        qInfo(
            "render, 0.3 s IR, two channels, IRs changing on another thread: %.1f us per "
            "128-sample block (%.2f %% of its 2667 us)",
            us, us / 2666.7 * 100);
        QVERIFY(us < 2666.7);

        // A 3 s room: a synthetic results directory with one 3 s IR.
        QTemporaryDir dir;
        QDir().mkpath(dir.filePath("ir"));
        std::vector<float> ir(3 * 48000);
        std::mt19937 rng(3);
        std::normal_distribution<float> g;
        for (size_t i = 0; i < ir.size(); ++i)
            ir[i] = 0.02f * static_cast<float>(std::exp(-6.9 * static_cast<double>(i) / 96000.0)) *
                    g(rng);
        ardent::audio::write_wav_float(dir.filePath("ir/A_B.wav").toStdString(), ir, 48000);
        QFile j(dir.filePath("result.json"));
        QVERIFY(j.open(QIODevice::WriteOnly));
        j.write(R"({"settings": {"max_frequency": 10000}, "ir": {"sample_rate": 48000},
                   "files": {"ir": ["ir/A_B.wav"]},
                   "acoustics": [{"source": "A", "receiver": "B"}]})");
        j.close();
        AuditionEngine big;
        big.load_dry(kDry);
        big.open_results(dir.path().toStdString());
        big.set_loop(true);
        big.play();
        for (int i = 0; i < 200; ++i)
            big.render(buf.data(), 128);
        t.restart();
        for (int i = 0; i < blocks; ++i)
            big.render(buf.data(), 128);
        const double us3 = static_cast<double>(t.nsecsElapsed()) / 1e3 / blocks;
        qInfo("render, 3 s IR, two channels: %.1f us per 128-sample block (%.2f %% of real time)",
              us3, us3 / 2666.7 * 100);
        QVERIFY(us3 < 2666.7);
    }

  private:
    QTemporaryDir tmp_;
    std::string results_;
};

QTEST_GUILESS_MAIN(TestAuditionEngine)
#include "test_audition_engine.moc"
