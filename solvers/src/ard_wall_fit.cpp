#include "ardent/solvers/ard_wall_fit.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

namespace ardent::ard {

using cplx = std::complex<double>;

cplx stepped_branch_admittance(const AdmittanceBranch& b, double w, double dt) {
    // A branch with mass, stepped from u^n with v at the half steps (wall_physics.h):
    // m (v+ - v-) / dt + (v+ + v-) / 2 + (s+ + s-) / 2 = g u^n gives
    // dv = j w dt (W / w) g / (1 + j (m W - k / W)), W = (2 / dt) tan(w dt / 2).
    const double x = w * dt, warped = 2 / dt * std::tan(x / 2);
    cplx y = (warped / w) * b.conductance / cplx(1, b.mass * warped - b.stiffness / warped);
    if (b.mass == 0) {
        // Massless: input (u^n + u^{n-1}) / 2, output (3 dv^n - dv^{n-1}) / 2.
        const cplx back = std::exp(cplx(0, -x));
        y *= (1.0 + back) / 2.0 * ((3.0 - back) / 2.0);
    }
    return y;
}

namespace {

// The wall's free parameters as logarithms (positive by construction): each branch's g, and its
// m and k where it has them.
struct Parameters {
    std::vector<double> log;
    std::vector<std::pair<size_t, int>> which;  // branch, 0: g, 1: m, 2: k

    explicit Parameters(const std::vector<AdmittanceBranch>& branches) {
        for (size_t i = 0; i < branches.size(); ++i) {
            add(i, 0, branches[i].conductance);
            if (branches[i].mass > 0) add(i, 1, branches[i].mass);
            if (branches[i].stiffness > 0) add(i, 2, branches[i].stiffness);
        }
    }
    void add(size_t branch, int kind, double value) {
        which.emplace_back(branch, kind);
        log.push_back(std::log(value));
    }
    std::vector<AdmittanceBranch> branches(std::vector<AdmittanceBranch> b) const {
        for (size_t i = 0; i < log.size(); ++i) {
            const double v = std::exp(log[i]);
            AdmittanceBranch& t = b[which[i].first];
            (which[i].second == 0   ? t.conductance
             : which[i].second == 1 ? t.mass
                                    : t.stiffness) = v;
        }
        return b;
    }
};

struct Problem {
    std::vector<double> w;
    std::vector<cplx> target;  // the fitted branches' sum at each w
    double dt;

    // Real and imaginary parts of stepped - target at each frequency; returns the squared sum.
    double residuals(const std::vector<AdmittanceBranch>& branches, std::vector<double>& r) const {
        r.resize(2 * w.size());
        double cost = 0;
        for (size_t i = 0; i < w.size(); ++i) {
            cplx d = -target[i];
            for (const AdmittanceBranch& b : branches)
                d += stepped_branch_admittance(b, w[i], dt);
            r[2 * i] = d.real();
            r[2 * i + 1] = d.imag();
            cost += std::norm(d);
        }
        return cost;
    }
};

// Solves a x = rhs by Gaussian elimination with partial pivoting; a is n x (n + 1), rhs last.
std::vector<double> solve(std::vector<std::vector<double>> a) {
    const size_t n = a.size();
    for (size_t c = 0; c < n; ++c) {
        size_t pivot = c;
        for (size_t r = c + 1; r < n; ++r)
            if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
        std::swap(a[c], a[pivot]);
        for (size_t r = c + 1; r < n; ++r) {
            const double f = a[r][c] / a[c][c];
            for (size_t k = c; k <= n; ++k)
                a[r][k] -= f * a[c][k];
        }
    }
    std::vector<double> x(n);
    for (size_t c = n; c-- > 0;) {
        double s = a[c][n];
        for (size_t k = c + 1; k < n; ++k)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return x;
}

}  // namespace

std::vector<AdmittanceBranch> fit_stepped_branches(const std::vector<AdmittanceBranch>& fitted,
                                                   double dt, double f_max) {
    for (const AdmittanceBranch& b : fitted)
        if (!(b.conductance > 0) || b.mass < 0 || b.stiffness < 0) return fitted;
    if (fitted.empty() || !(dt > 0) || !(f_max > 0)) return fitted;
    Problem problem{{}, {}, dt};
    constexpr int kFrequencies = 96;
    for (int i = 0; i < kFrequencies; ++i) {
        const double w =
            2 * std::numbers::pi * f_max * (0.02 + 0.98 * i / double(kFrequencies - 1));
        cplx y = 0;
        for (const AdmittanceBranch& b : fitted)
            y += b.conductance / cplx(1, b.mass * w - b.stiffness / w);
        problem.w.push_back(w);
        problem.target.push_back(y);
    }
    Parameters p(fitted);
    const std::vector<double> start_log = p.log;
    const size_t n = p.log.size();
    std::vector<double> r, trial_r;
    const double start = problem.residuals(fitted, r);
    double cost = start, damping = 1e-3;
    // Levenberg-Marquardt on the log parameters, the Jacobian by forward differences.
    std::vector<std::vector<double>> jac(n);
    for (int iteration = 0; iteration < 200 && damping < 1e8; ++iteration) {
        for (size_t a = 0; a < n; ++a) {
            Parameters q = p;
            q.log[a] += 1e-7;
            problem.residuals(q.branches(fitted), trial_r);
            jac[a].resize(r.size());
            for (size_t i = 0; i < r.size(); ++i)
                jac[a][i] = (trial_r[i] - r[i]) / 1e-7;
        }
        std::vector<std::vector<double>> normal(n, std::vector<double>(n + 1, 0.0));
        for (size_t a = 0; a < n; ++a) {
            for (size_t c = 0; c < n; ++c)
                for (size_t i = 0; i < r.size(); ++i)
                    normal[a][c] += jac[a][i] * jac[c][i];
            for (size_t i = 0; i < r.size(); ++i)
                normal[a][n] -= jac[a][i] * r[i];
            normal[a][a] *= 1 + damping;
        }
        const std::vector<double> step = solve(std::move(normal));
        Parameters q = p;
        for (size_t a = 0; a < n; ++a) {
            const double down = std::log(p.which[a].second == 1 ? kMassDrop : kLargestChange);
            q.log[a] = std::clamp(q.log[a] + step[a], start_log[a] - down,
                                  start_log[a] + std::log(kLargestChange));
        }
        const double trial = problem.residuals(q.branches(fitted), trial_r);
        if (std::isfinite(trial) && trial < cost) {
            const bool converged = cost - trial < 1e-10 * cost;
            p = q, cost = trial, r.swap(trial_r), damping *= 0.3;
            if (converged) break;
        } else {
            damping *= 10;
        }
    }
    return cost < start ? p.branches(fitted) : fitted;
}

}  // namespace ardent::ard
