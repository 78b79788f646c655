#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ardent::cli {

Progress::Progress(bool quiet)
    : style_(quiet ? Style::Quiet : (::isatty(STDERR_FILENO) ? Style::Bar : Style::Lines)) {}

std::string Progress::duration_text(double s) {
    if (!std::isfinite(s) || s < 0) return "?";
    char buf[32];
    const long t = std::lround(s);
    if (s < 60) {
        std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
    } else if (t < 3600) {
        std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    }
    return buf;
}

void Progress::begin(const std::string& label, size_t total, const std::string& unit,
                     size_t already_done) {
    label_ = label;
    unit_ = unit;
    total_ = total;
    done_ = first_ = already_done;
    start_ = last_draw_ = Clock::now();
    active_ = true;
    drawn_ = false;
    if (style_ == Style::Lines)
        std::fprintf(stderr, "%s: %zu %s\n", label_.c_str(), total_, unit_.c_str());
    if (style_ == Style::Bar) draw(false);
}

void Progress::update(size_t done) {
    done_ = done;
    if (style_ == Style::Quiet || !active_) return;
    const auto now = Clock::now();
    const double since = std::chrono::duration<double>(now - last_draw_).count();
    if (since < (style_ == Style::Bar ? 0.1 : 5.0)) return;
    last_draw_ = now;
    draw(false);
}

void Progress::end() {
    if (!active_) return;
    active_ = false;
    if (style_ != Style::Quiet) draw(true);
}

void Progress::abandon() {
    if (!active_) return;
    active_ = false;
    if (style_ == Style::Quiet) return;
    if (style_ == Style::Bar && drawn_) std::fputs("\r\033[K", stderr);
    std::fprintf(stderr, "%s: stopped after %zu of %zu %s\n", label_.c_str(), done_, total_,
                 unit_.c_str());
    drawn_ = false;
    std::fflush(stderr);
}

void Progress::note(const std::string& line) {
    if (style_ == Style::Quiet) return;
    if (style_ == Style::Bar && drawn_) std::fputs("\r\033[K", stderr);
    std::fprintf(stderr, "%s\n", line.c_str());
    if (style_ == Style::Bar && active_) draw(false);
}

void Progress::draw(bool final) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done_ - first_) / elapsed : 0;
    const double frac = total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 1.0;
    const double eta =
        rate > 0 ? static_cast<double>(total_ - std::min(done_, total_)) / rate : std::nan("");
    char rate_text[32];
    std::snprintf(rate_text, sizeof rate_text, rate >= 100 ? "%.0f" : "%.1f", rate);
    if (style_ == Style::Lines) {
        if (final) {
            std::fprintf(stderr, "%s: done, %zu %s in %s (%s %s/s)\n", label_.c_str(), done_,
                         unit_.c_str(), duration_text(elapsed).c_str(), rate_text, unit_.c_str());
        } else {
            std::fprintf(stderr, "%s: %zu/%zu %s (%.0f %%), %s %s/s, %s left\n", label_.c_str(),
                         done_, total_, unit_.c_str(), 100 * frac, rate_text, unit_.c_str(),
                         duration_text(eta).c_str());
        }
        std::fflush(stderr);
        return;
    }
    constexpr int width = 30;
    const int fill = static_cast<int>(std::clamp(frac, 0.0, 1.0) * width);
    std::string bar(static_cast<size_t>(fill), '#');
    bar.resize(width, '-');
    if (final) {
        std::fprintf(stderr, "\r\033[K%s [%s] %3.0f %% %zu/%zu %s, %s %s/s, done in %s",
                     label_.c_str(), bar.c_str(), 100 * frac, done_, total_, unit_.c_str(),
                     rate_text, unit_.c_str(), duration_text(elapsed).c_str());
    } else {
        std::fprintf(stderr, "\r\033[K%s [%s] %3.0f %% %zu/%zu %s, %s %s/s, %s left",
                     label_.c_str(), bar.c_str(), 100 * frac, done_, total_, unit_.c_str(),
                     rate_text, unit_.c_str(), duration_text(eta).c_str());
    }
    if (final) std::fputc('\n', stderr);
    std::fflush(stderr);
    drawn_ = !final;
}

}  // namespace ardent::cli
