#include "observer_relay.h"

namespace ardent::pipeline {

void ObserverRelay::warning(const std::string& text) {
    const std::lock_guard<std::mutex> lock(mutex_);
    warnings_.push_back(text);
}

void ObserverRelay::begin(Kind kind, const std::string& label, size_t count) {
    const std::lock_guard<std::mutex> lock(mutex_);
    kind_ = kind;
    label_ = label;
    count_ = count;
    done_ = 0;
    ++part_;
}

void ObserverRelay::end(SimulateObserver& to, bool stopped) const {
    if (seen_kind_ == Kind::Geometric)
        stopped ? to.geometric_stopped() : to.geometric_end();
    else if (!stopped)
        to.write_end();
}

void ObserverRelay::forward(SimulateObserver& to) {
    int part;
    Kind kind;
    std::string label;
    size_t count;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        part = part_;
        kind = kind_;
        label = label_;
        count = count_;
    }
    if (part != seen_) {
        if (seen_ > 0) end(to, false);
        kind == Kind::Geometric ? to.geometric_begin(label, count) : to.write_begin(label, count);
        seen_ = part;
        seen_kind_ = kind;
    }
    if (seen_ == 0) return;
    seen_kind_ == Kind::Geometric ? to.geometric_progress(done_.load())
                                  : to.write_progress(done_.load());
}

void ObserverRelay::finish(SimulateObserver& to, bool stopped) {
    forward(to);
    if (seen_ > 0) end(to, stopped);
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& w : warnings_)
        to.warning(w);
}

}  // namespace ardent::pipeline
