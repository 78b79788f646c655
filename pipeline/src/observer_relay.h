// What a stage running on another thread reports (a GPU solve's rays, a source's files written
// during the next source's solve), kept until the caller's thread passes it on: the observers
// (the CLI's progress bar, the editor, Python's callback) are called from one thread only. The
// stage's thread calls the SimulateObserver methods; the caller's thread calls forward() a few
// times a second and finish() once the stage is over.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "ardent/pipeline/simulate.h"

namespace ardent::pipeline {

class ObserverRelay final : public SimulateObserver {
  public:
    void warning(const std::string& text) override;
    void geometric_begin(const std::string& label, size_t rays) override {
        begin(Kind::Geometric, label, rays);
    }
    void geometric_progress(size_t done) override { done_ = done; }
    void write_begin(const std::string& source, size_t irs) override {
        begin(Kind::Write, source, irs);
    }
    void write_progress(size_t done) override { done_ = done; }

    // Passes on to `to` what changed since the last call: a new part's begin (and the end of
    // the one before), the count done.
    void forward(SimulateObserver& to);
    // The rest, then the last part's end (a stopped stage: geometric_stopped(), no write_end()),
    // then the warnings.
    void finish(SimulateObserver& to, bool stopped);

  private:
    enum class Kind { Geometric, Write };
    void begin(Kind kind, const std::string& label, size_t count);  // a new part
    void end(SimulateObserver& to, bool stopped) const;

    std::mutex mutex_;
    std::vector<std::string> warnings_;
    std::string label_;
    size_t count_ = 0;
    Kind kind_ = Kind::Geometric, seen_kind_ = Kind::Geometric;
    int part_ = 0, seen_ = 0;  // parts begun on the stage's thread, passed on
    std::atomic<size_t> done_{0};
};

}  // namespace ardent::pipeline
