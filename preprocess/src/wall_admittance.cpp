#include "ardent/preprocess/wall_admittance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>

namespace ardent {
namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;
// Candidate branches at every octave of the range: resonant ones of two widths, and low- and
// high-pass ones (an inductor or a capacitor alone), so that rising, falling and peaked curves
// all have a passive fit; the least-squares fit keeps a few.
constexpr double kQualities[] = {0.7, 2.0};
// Third-octave data (BRAS) change by a third of their value from one band to the next: resonant
// branches at the bands and about a band wide (Q 4 for third octaves, 1.4 for octaves) follow them.
constexpr double kNarrowQuality = 4.0;
constexpr int kSamplesPerOctave = 12;
constexpr double kCentreWeight = 10;  // a band centre against one sample between them
constexpr int kBandPoints = 16;       // a band's average: midpoints, uniform in frequency
constexpr int kAveragePasses = 4;     // refits that move band averages onto the given values
// The reactance's weight in the fit, tried in turn (the last, none, always fits best).
constexpr double kReactanceWeights[] = {0.1, 0.03, 0.01, 0.0};

// Solves the symmetric positive definite system g[set][set] z = h[set] by Cholesky; returns
// false when it is singular.
bool solve_on(const std::vector<std::vector<double>>& g, const std::vector<double>& h,
              const std::vector<size_t>& set, std::vector<double>& z) {
    const size_t m = set.size();
    std::vector<std::vector<double>> c(m, std::vector<double>(m, 0.0));
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j <= i; ++j) {
            double sum = g[set[i]][set[j]];
            for (size_t k = 0; k < j; ++k)
                sum -= c[i][k] * c[j][k];
            if (i == j) {
                if (sum <= 1e-14 * std::max(1.0, g[set[i]][set[i]])) return false;
                c[i][i] = std::sqrt(sum);
            } else {
                c[i][j] = sum / c[j][j];
            }
        }
    z.assign(m, 0.0);
    for (size_t i = 0; i < m; ++i) {
        double sum = h[set[i]];
        for (size_t k = 0; k < i; ++k)
            sum -= c[i][k] * z[k];
        z[i] = sum / c[i][i];
    }
    for (size_t i = m; i-- > 0;) {
        double sum = z[i];
        for (size_t k = i + 1; k < m; ++k)
            sum -= c[k][i] * z[k];
        z[i] = sum / c[i][i];
    }
    return true;
}

// min sum_i w_i (A x - b)_i^2 over x >= 0: Lawson and Hanson's active-set method on the normal
// equations (a few dozen unknowns).
std::vector<double> nonnegative_least_squares(const std::vector<std::vector<double>>& a,
                                              const std::vector<double>& b,
                                              const std::vector<double>& w) {
    const size_t n = a.empty() ? 0 : a[0].size();
    std::vector<std::vector<double>> g(n, std::vector<double>(n, 0.0));
    std::vector<double> h(n, 0.0), x(n, 0.0), z;
    for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = 0; j < n; ++j) {
            h[j] += w[i] * a[i][j] * b[i];
            for (size_t k = 0; k < n; ++k)
                g[j][k] += w[i] * a[i][j] * a[i][k];
        }
    std::vector<bool> passive(n, false);
    std::vector<bool> excluded(n, false);  // columns that made the system singular
    for (size_t outer = 0; outer < 3 * n; ++outer) {
        // The most promising column not yet free: the largest negative gradient.
        size_t best = n;
        double best_grad = 1e-15;
        for (size_t j = 0; j < n; ++j) {
            if (passive[j] || excluded[j]) continue;
            double grad = h[j];
            for (size_t k = 0; k < n; ++k)
                grad -= g[j][k] * x[k];
            if (grad > best_grad) best_grad = grad, best = j;
        }
        if (best == n) break;
        passive[best] = true;
        for (int inner = 0; inner < 100; ++inner) {
            std::vector<size_t> set;
            for (size_t j = 0; j < n; ++j)
                if (passive[j]) set.push_back(j);
            if (!solve_on(g, h, set, z)) {
                passive[best] = false;
                excluded[best] = true;
                break;
            }
            bool feasible = true;
            for (double v : z)
                feasible = feasible && v > 0;
            if (feasible) {
                std::fill(x.begin(), x.end(), 0.0);
                for (size_t i = 0; i < set.size(); ++i)
                    x[set[i]] = z[i];
                break;
            }
            // Step towards z until the first free unknown reaches zero; drop those at zero.
            double t = 1;
            for (size_t i = 0; i < set.size(); ++i)
                if (z[i] <= 0) t = std::min(t, x[set[i]] / (x[set[i]] - z[i]));
            for (size_t i = 0; i < set.size(); ++i) {
                x[set[i]] += t * (z[i] - x[set[i]]);
                if (x[set[i]] <= 1e-15) x[set[i]] = 0, passive[set[i]] = false;
            }
        }
    }
    return x;
}

std::string format_hz(double hz) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g Hz", hz);
    return buf;
}

}  // namespace

double AdmittanceBranch::resonance() const {
    return mass > 0 && stiffness > 0 ? std::sqrt(stiffness / mass) : 0;
}

std::complex<double> branch_shape(const AdmittanceBranch& b, double omega) {
    return 1.0 / std::complex<double>(1.0, omega * b.mass - b.stiffness / omega);
}

std::complex<double> WallAdmittance::at(double omega) const {
    std::complex<double> y = conductance;
    for (const AdmittanceBranch& b : branches)
        y += b.conductance * branch_shape(b, omega);
    return y;
}

std::complex<double> plane_wave_reflection(std::complex<double> beta, double cos_theta) {
    return (cos_theta - beta) / (cos_theta + beta);
}

double normal_absorption(std::complex<double> beta) {
    return 1 - std::norm(plane_wave_reflection(beta, 1.0));
}

double paris_absorption(std::complex<double> beta) {
    // 1 - |R|^2 = 4 u a / |u + beta|^2 with u = cos theta, a = Re beta, and sin 2 theta d theta
    // = 2 u du: alpha = 8 a integral_0^1 u^2 / ((u + a)^2 + b^2) du, integrated in closed form.
    const double a = beta.real(), b = beta.imag();
    if (a <= 0) return 0;
    const double log_term = a * std::log(((1 + a) * (1 + a) + b * b) / (a * a + b * b));
    // (b^2 - a^2) / b (atan((1 + a) / b) - atan(a / b)), written so that b -> 0 is exact.
    const double denom = b * b + a + a * a;
    const double t = b / denom;
    const double atan_over_t = std::abs(t) < 1e-8 ? 1 - t * t / 3 : std::atan(t) / t;
    const double atan_term = (b * b - a * a) * atan_over_t / denom;
    return 8 * a * (1 - log_term - atan_term);
}

namespace {

// The real admittance at which Paris' absorption peaks (about 0.64), by golden-section search.
double peak_admittance() {
    static const double peak = [] {
        double lo = 0.05, hi = 3.0;
        const double r = (std::sqrt(5.0) - 1) / 2;
        for (int i = 0; i < 200; ++i) {
            const double m1 = hi - r * (hi - lo), m2 = lo + r * (hi - lo);
            if (paris_absorption(m1) < paris_absorption(m2))
                lo = m1;
            else
                hi = m2;
        }
        return 0.5 * (lo + hi);
    }();
    return peak;
}

}  // namespace

double max_paris_absorption() {
    return paris_absorption(peak_admittance());
}

double random_incidence_from_normal(double alpha_n) {
    const double r = std::sqrt(std::max(0.0, 1 - alpha_n));  // |R(0)| of a real admittance <= 1
    return paris_absorption((1 - r) / (1 + r));
}

double real_admittance_for(double alpha) {
    if (alpha <= 0) return 0;
    double lo = 0, hi = peak_admittance();
    if (alpha >= paris_absorption(hi)) return hi;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (paris_absorption(mid) < alpha ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

bool FittedBand::within_tolerance() const {
    return std::abs(residual()) <= std::max(0.02, 0.1 * target) + 1e-12;
}

namespace {

struct Samples {
    std::vector<double> freq, target, weight;
    double reactance_weight = 0;  // of |Im beta| against the error in Re beta at each sample
};

// The passive admittance over the candidates in use (and a constant conductance) whose Paris
// absorption best matches the targets: the real part is fitted by non-negative least squares to
// the real admittance of each target, then the targets are corrected for what the branches'
// reactance does to the absorption, until the absorption itself matches. Writes each candidate's
// fitted conductance into `candidates` (0 when unused).
WallAdmittance fit_candidates(std::vector<AdmittanceBranch>& candidates,
                              const std::vector<bool>& use, const Samples& s) {
    std::vector<size_t> columns;
    for (size_t k = 0; k < candidates.size(); ++k)
        if (use[k]) columns.push_back(k);
    const size_t n = columns.size() + 1;  // unknown 0: the constant conductance
    const size_t rows = s.freq.size();
    std::vector<std::vector<std::complex<double>>> shape(rows,
                                                         std::vector<std::complex<double>>(n));
    // Rows 0..rows-1: the real part against the goal; with a reactance weight, rows..2 rows-1: the
    // reactance against 0, weighted less (kReactanceWeights).
    const bool reactance = s.reactance_weight > 0;
    std::vector<std::vector<double>> real_shape(reactance ? 2 * rows : rows,
                                                std::vector<double>(n));
    for (size_t i = 0; i < rows; ++i) {
        shape[i][0] = 1.0;
        for (size_t c = 0; c < columns.size(); ++c)
            shape[i][c + 1] = branch_shape(candidates[columns[c]], kTwoPi * s.freq[i]);
        for (size_t k = 0; k < n; ++k) {
            real_shape[i][k] = shape[i][k].real();
            if (reactance) real_shape[rows + i][k] = shape[i][k].imag();
        }
    }
    std::vector<double> weight = s.weight;
    if (reactance)
        for (size_t i = 0; i < rows; ++i)
            weight.push_back(s.reactance_weight * s.weight[i]);
    std::vector<double> goal(real_shape.size(), 0.0);
    for (size_t i = 0; i < rows; ++i)
        goal[i] = real_admittance_for(s.target[i]);
    std::vector<double> x;
    for (int iteration = 0; iteration < 30; ++iteration) {
        x = nonnegative_least_squares(real_shape, goal, weight);
        for (size_t i = 0; i < rows; ++i) {
            std::complex<double> y = 0;
            for (size_t k = 0; k < n; ++k)
                y += x[k] * shape[i][k];
            const double got = paris_absorption(y);
            // Beyond the peak admittance more conductance absorbs less: never aim past it.
            if (got > 0 && s.target[i] > 0)
                goal[i] =
                    std::min(goal[i] * std::clamp(s.target[i] / got, 0.8, 1.25), peak_admittance());
        }
    }
    WallAdmittance out;
    out.conductance = x[0];
    for (AdmittanceBranch& b : candidates)
        b.conductance = 0;
    for (size_t c = 0; c < columns.size(); ++c) {
        candidates[columns[c]].conductance = x[c + 1];
        if (x[c + 1] > 0) out.branches.push_back(candidates[columns[c]]);
    }
    return out;
}

}  // namespace

namespace {

// Each band spans half the distance to its neighbours on either side (the narrower side, at most
// an octave): octaves for octave data, third octaves for third-octave data.
void set_band_edges(std::vector<FittedBand>& bands) {
    for (size_t i = 0; i < bands.size(); ++i) {
        double spacing = 1;
        if (i > 0) spacing = std::min(spacing, std::log2(bands[i].hz / bands[i - 1].hz));
        if (i + 1 < bands.size())
            spacing = std::min(spacing, std::log2(bands[i + 1].hz / bands[i].hz));
        bands[i].lo_hz = bands[i].hz * std::exp2(-spacing / 2);
        bands[i].hi_hz = bands[i].hz * std::exp2(spacing / 2);
    }
}

// Samples of the target curve over the judged range and an octave either side (so the curve
// stays smooth at the range's ends; the range itself weighs more), and the judged bands' centres,
// which weigh most.
Samples make_samples(const Material& target_curve, const WallFit& fit, double cap,
                     double reactance_weight) {
    Samples s;
    s.reactance_weight = reactance_weight;
    auto add = [&](double f, double alpha, double weight) {
        s.freq.push_back(f);
        s.target.push_back(std::min(alpha, cap - 1e-4));
        // Relative error in the admittance: a decay time goes as 1 / alpha, so 0.005 matters as
        // much on a wall of 0.05 as 0.05 on one of 0.5.
        const double scale = std::max(real_admittance_for(s.target.back()), 2e-4);
        s.weight.push_back(weight / (scale * scale));
    };
    for (double f = fit.lowest_hz / 2; f <= fit.highest_hz * 2 * (1 + 1e-9);
         f *= std::exp2(1.0 / kSamplesPerOctave)) {
        const bool inside = f >= fit.lowest_hz * (1 - 1e-9) && f <= fit.highest_hz * (1 + 1e-9);
        add(f, target_curve.absorption_at(f), inside ? 1.0 : 0.1);
    }
    for (const FittedBand& b : fit.bands)
        if (b.judged) add(b.hz, target_curve.absorption_at(b.hz), kCentreWeight);
    return s;
}

// Candidate branches an octave apart over the sampled range and, for per-band data, resonances
// at the given bands themselves, as wide as the bands are apart, so that a curve that changes
// direction from one band to the next can be followed.
std::vector<AdmittanceBranch> make_candidates(const Material& m, const WallFit& fit) {
    std::vector<AdmittanceBranch> candidates;
    for (double f = fit.lowest_hz / 2; f <= fit.highest_hz * 2 * (1 + 1e-9); f *= 2) {
        const double w = kTwoPi * f;
        for (double q : kQualities)
            candidates.push_back({1.0, q / w, q * w});
        candidates.push_back({1.0, 1 / w, 0});  // low-pass (R-L)
        candidates.push_back({1.0, 0, w});      // high-pass (R-C)
    }
    if (m.per_band)
        for (size_t i = 0; i < m.absorption.size(); ++i) {
            const double hz = m.absorption[i].hz;
            if (hz < fit.lowest_hz / 2 || hz > fit.highest_hz * 2) continue;
            double spacing = 1;  // octaves to the nearest given band
            if (i > 0) spacing = std::min(spacing, std::log2(hz / m.absorption[i - 1].hz));
            if (i + 1 < m.absorption.size())
                spacing = std::min(spacing, std::log2(m.absorption[i + 1].hz / hz));
            const double q = kNarrowQuality * std::clamp(1 / (3 * spacing), 0.35, 1.0);
            const double w = kTwoPi * hz;
            candidates.push_back({1.0, q / w, q * w});
        }
    return candidates;
}

}  // namespace

double band_absorption(const WallAdmittance& y, double lo_hz, double hi_hz) {
    double sum = 0;
    for (int i = 0; i < kBandPoints; ++i)
        sum += paris_absorption(y.at(kTwoPi * (lo_hz + (i + 0.5) * (hi_hz - lo_hz) / kBandPoints)));
    return sum / kBandPoints;
}

namespace {

// Fewer branches cost less per wall cell and step: drops the weakest (by conductance) while every
// band in range stays within 0.003 absolute or 3 % relative (or its error with every branch), far
// inside the tolerance (a room's decay time goes as 1 / alpha, so 0.02 on a wall of 0.02 would
// halve it). A branch whose removal breaks a band stays, and the next weakest is tried.
// `errors` gives each judged band's error in units of that bar.
WallAdmittance prune_branches(
    std::vector<AdmittanceBranch>& candidates, std::vector<bool>& use, const Samples& samples,
    WallAdmittance best, const std::function<std::vector<double>(const WallAdmittance&)>& errors) {
    const std::vector<double> start = errors(best);
    std::vector<size_t> order;
    for (size_t k = 0; k < candidates.size(); ++k)
        if (use[k]) order.push_back(k);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return candidates[a].conductance < candidates[b].conductance;
    });
    for (size_t k : order) {
        use[k] = false;
        const WallAdmittance trial = fit_candidates(candidates, use, samples);
        const std::vector<double> e = errors(trial);
        bool fine = true;  // every band within the bar, or no worse than with every branch
        for (size_t i = 0; i < e.size(); ++i)
            fine = fine && e[i] <= std::max(1.0, start[i]);
        if (!fine) {
            use[k] = true;
            continue;
        }
        best = trial;
    }
    return best;
}

// Fills each band's fitted absorption (its average, and at its centre) and the warnings: a
// coefficient no locally reacting wall reaches, a band outside the tolerance.
void report_bands(WallFit& fit, double cap) {
    for (FittedBand& b : fit.bands) {
        b.fitted = band_absorption(fit.admittance, b.lo_hz, b.hi_hz);
        b.fitted_centre = paris_absorption(fit.admittance.at(kTwoPi * b.hz));
        if (!b.judged) continue;
        char msg[200];
        if (b.target > cap) {
            std::snprintf(msg, sizeof msg,
                          "absorption %.3g at %s is more than a locally reacting wall absorbs at "
                          "random incidence (%.3f); fitted as %.3f",
                          b.target, format_hz(b.hz).c_str(), cap, b.fitted);
            fit.warnings.push_back(msg);
        } else if (!b.within_tolerance()) {
            std::snprintf(msg, sizeof msg, "the fitted wall absorbs %.3f at %s, asked %.3f",
                          b.fitted, format_hz(b.hz).c_str(), b.target);
            fit.warnings.push_back(msg);
        }
    }
}

}  // namespace

WallFit fit_wall(const Material& m, double max_frequency) {
    WallFit fit;
    fit.material = m.name;
    fit.lowest_hz = 0.05 * max_frequency;
    fit.highest_hz = max_frequency;

    std::vector<double> centres;
    if (m.per_band) {
        for (const AbsorptionBand& b : m.absorption)
            centres.push_back(b.hz);
    } else {
        for (double hz = 62.5; hz <= 8000; hz *= 2)
            centres.push_back(hz == 62.5 ? 63 : hz);
    }
    for (double hz : centres)
        fit.bands.push_back(
            {.hz = hz,
             .target = m.absorption_at(hz),
             .judged = hz >= fit.lowest_hz * (1 - 1e-9) && hz <= fit.highest_hz * (1 + 1e-9)});
    set_band_edges(fit.bands);

    bool all_open = true;
    for (const AbsorptionBand& b : m.absorption)
        all_open = all_open && b.alpha >= 1;
    fit.open = all_open;
    if (all_open || m.max_absorption() <= 0) {
        for (FittedBand& b : fit.bands)
            b.fitted = b.fitted_centre = all_open ? 1 : 0;
        return fit;
    }

    const double cap = max_paris_absorption();
    std::vector<AdmittanceBranch> candidates = make_candidates(m, fit);
    std::vector<bool> use(candidates.size(), true);
    // An unreachable coefficient is judged against the most a wall absorbs.
    auto band_error = [&](const WallAdmittance& y, const FittedBand& b) {
        return band_absorption(y, b.lo_hz, b.hi_hz) - std::min(b.target, cap);
    };
    // Each judged band's error in units of 0.003 absolute or 3 % relative.
    auto errors = [&](const WallAdmittance& y) {
        std::vector<double> e;
        for (const FittedBand& b : fit.bands)
            if (b.judged) {
                const double want = std::min(b.target, cap);
                e.push_back(std::abs(band_error(y, b)) / std::max(0.003, 0.03 * want));
            }
        return e;
    };
    auto worst = [&](const WallAdmittance& y) {
        const std::vector<double> e = errors(y);
        return e.empty() ? 0.0 : *std::max_element(e.begin(), e.end());
    };
    // The worst band in units of the tolerance (0.02 or 10 %): what a refit must not make worse.
    auto worst_in_tolerance = [&](const WallAdmittance& y) {
        double w = 0;
        for (const FittedBand& b : fit.bands)
            if (b.judged) {
                const double want = std::min(b.target, cap);
                w = std::max(w, std::abs(band_error(y, b)) / std::max(0.02, 0.1 * want));
            }
        return w;
    };

    // A band's coefficient is its average (a reverberation-room measurement excites the whole
    // band), not the value at its centre: where the curve bends inside a band the two differ
    // (0.024 on an octave rising from 0.1 to 0.25). So the curve's values at the judged bands are
    // moved by what their averages miss, and the wall refitted, a few times.
    Material curve;
    Samples samples;
    WallAdmittance best;
    auto match_band_averages = [&] {
        if (!m.per_band) return;  // one coefficient: a flat curve, its averages are its value
        for (int pass = 0; pass < kAveragePasses; ++pass) {
            std::vector<AbsorptionBand> nodes = curve.absorption;
            bool moved = false;
            for (AbsorptionBand& n : nodes)
                for (const FittedBand& b : fit.bands)
                    if (b.judged && b.hz == n.hz && b.target < cap) {
                        const double miss = band_error(best, b);
                        moved = moved || std::abs(miss) > 1e-4;
                        n.alpha = std::clamp(n.alpha - miss, 0.0, cap - 1e-4);
                    }
            if (!moved) return;
            Material trial_curve = curve;
            trial_curve.set_bands(nodes);
            const Samples trial_samples =
                make_samples(trial_curve, fit, cap, samples.reactance_weight);
            const WallAdmittance trial = fit_candidates(candidates, use, trial_samples);
            // Zigzag data (0.13, 0.04, 0.15 in three octaves) push the values apart faster than
            // the branches can follow: stop when the worst band, against the tolerance, is not
            // better, or when the finest band gets worse.
            if (worst_in_tolerance(trial) > worst_in_tolerance(best) || worst(trial) >= worst(best))
                return;
            best = trial, curve = trial_curve, samples = trial_samples;
        }
    };
    // Among the walls that absorb as asked, the least reactive: a wall's reactance makes the
    // grid's error in the wall's position (its pressure is taken half a cell from its face) an
    // error in its absorption, first order in k h (measured in a duct to 1 kHz: |R| 0.08 off at
    // 630 Hz with a spring-like fit, 0.01 with the least reactive one). The reactance is weighed
    // against the real part's error, less and less until every band is within 0.003 or 3 %.
    for (double reactance_weight : kReactanceWeights) {
        curve = m;
        samples = make_samples(curve, fit, cap, reactance_weight);
        best = fit_candidates(candidates, use, samples);
        match_band_averages();
        if (worst(best) <= 1) break;
    }
    best = prune_branches(candidates, use, samples, best, errors);
    match_band_averages();  // with the branches that stay
    fit.admittance = best;

    report_bands(fit, cap);
    return fit;
}

std::vector<WallFit> fit_walls(const Scene& scene) {
    std::vector<WallFit> out;
    for (const Material& m : scene.materials)
        out.push_back(fit_wall(m, scene.simulation.max_frequency));
    return out;
}

}  // namespace ardent
