// Progress reports for long CLI work (spec section 4): on a terminal a one-line bar redrawn in
// place with the rate and the time left; otherwise (a pipe, a log file) a plain line every few
// seconds; nothing when quiet. Everything goes to stderr, so stdout stays clean for data.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace ardent::cli {

class Progress {
  public:
    enum class Style { Bar, Lines, Quiet };
    // Bar when stderr is a terminal, Lines otherwise; Quiet when `quiet`.
    explicit Progress(bool quiet);
    Progress(Style style) : style_(style) {}

    Style style() const { return style_; }
    // Starts a task of `total` units (`unit`: "steps").
    void begin(const std::string& label, size_t total, const std::string& unit = "steps",
               size_t already_done = 0);
    // Reports `done` units finished; redraws at most a few times a second.
    void update(size_t done);
    // Ends the task (prints its final state and the elapsed time).
    void end();
    // Ends the task early (stopped or failed): prints where it stopped, never "done".
    void abandon();
    // A message line (clears the bar first); not printed when quiet.
    void note(const std::string& line);

    // "1:02:03", "4:05", "12 s": for ETAs and elapsed times.
    static std::string duration_text(double seconds);

  private:
    void draw(bool final);
    using Clock = std::chrono::steady_clock;
    Style style_;
    std::string label_, unit_;
    size_t total_ = 0, done_ = 0, first_ = 0;
    Clock::time_point start_, last_draw_;
    bool active_ = false, drawn_ = false;
};

}  // namespace ardent::cli
