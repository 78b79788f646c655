#!/usr/bin/env python3
"""Fits and checks ARD's interface coupling on 1-D cuts (docs/ard.md, "Interfaces").

A 1-D line of N cells is cut into partitions. Each partition evolves with its exact Neumann (DCT)
Laplacian; interface lines add C (far - own) to the kReach cells either side of each face, as
solvers/src/ard_layout.cpp builds them (far: the true field beyond the face, mirrored at the
line's rigid ends; own: the partition's even extension). The exact answer is the whole line's DCT
Laplacian, whose eigenfrequencies are pi n / N.

  python3 scripts/fit_interface.py           # fit the kThick matrix, print it and the errors
  python3 scripts/fit_interface.py --check   # only the error table, for the coded coefficients

The error of a cut is the largest |w / w_exact - 1| * (w_exact / w_band) over the modes up to
0.8 f_max at 2.6 points per wavelength: a relative frequency error weighted by frequency, so it
measures the phase drift rate that limits long rigid-room runs. Needs numpy and scipy
(scripts/setup --docs).
"""
import argparse

import numpy as np
from scipy.optimize import least_squares

REACH = 3
THETA_BAND = np.pi * 0.8 * 2 / 2.6  # k h at 0.8 f_max, 2.6 points per wavelength
STENCIL = [0.0, 1.677365, -0.234851, 0.029115]  # ard_physics.h, stencil()
CODED = np.array([[1.5582008253, -0.3482334483, -0.0026894366],
                  [-0.3482334483, 0.2422064376, -0.0287239825],
                  [-0.0026894366, -0.0287239825, 0.0089762456]])  # interface_coefficient()


def dct_basis(w):
    n, i = np.arange(w), np.arange(w)
    d = np.cos(np.pi * np.outer(n, i + 0.5) / w)
    norm = np.where(n == 0, 1.0 / w, 2.0 / w)
    return d, norm, np.pi * n / w


def mirror(i, n):
    while i < 0 or i >= n:
        i = -1 - i if i < 0 else 2 * n - 1 - i
    return i


def own(lo, w, i):
    r = (i - lo) % (2 * w)
    return lo + (r if r < w else 2 * w - 1 - r)


def operators(n, parts, matrix):
    """Partition Laplacian A and interface coupling C of a cut (h = c = 1)."""
    a, c, spans, lo = np.zeros((n, n)), np.zeros((n, n)), [], 0
    for w in parts:
        d, norm, k = dct_basis(w)
        a[lo:lo + w, lo:lo + w] = (d.T * (-k * k * norm)) @ d
        spans.append((lo, w))
        lo += w
    for idx, (lo, w) in enumerate(spans):
        for side in (0, 1):
            if (side == 0 and lo == 0) or (side == 1 and lo + w == n):
                continue
            nb = spans[idx - 1][1] if side == 0 else spans[idx + 1][1]
            thick = matrix is not None and w >= REACH and nb >= REACH
            for j in range(min(REACH, w)):
                tgt = lo + j if side == 0 else lo + w - 1 - j
                for k in range(REACH):
                    if thick:
                        coef = matrix[j, k]
                    else:
                        coef = STENCIL[j + 1 + k] if j + 1 + k <= REACH else 0.0
                    pos = lo - 1 - k if side == 0 else lo + w + k
                    c[tgt, mirror(pos, n)] += coef
                    c[tgt, own(lo, w, pos)] -= coef
    return a, c, spans


def frequencies(n, parts, matrix, courant=None, corrected=False):
    """Coupled angular frequencies (h = c = 1), semi-discrete or with ARD's time step."""
    a, c, spans = operators(n, parts, matrix)
    if courant is None:
        return np.sort(np.sqrt(np.maximum(-np.linalg.eigvals(a + c).real, 0)))[1:]
    ma, mb, mphi = (np.zeros((n, n)) for _ in range(3))
    for lo, w in spans:
        d, norm, k = dct_basis(w)
        x = k * courant
        ca = 2 * np.cos(x)
        cb = np.where(k > 0, 2 * (1 - np.cos(x)) / np.maximum(k, 1e-30) ** 2, courant ** 2)
        phi = np.where(x > 1e-9, (x / 2) / np.tan(np.maximum(x, 1e-9) / 2), 1.0)
        if not corrected:
            phi = np.ones_like(x)
        for m, v in ((ma, ca), (mb, cb), (mphi, phi)):
            m[lo:lo + w, lo:lo + w] = (d.T * (v * norm)) @ d
    coupling = c @ mphi
    if corrected:
        coupling = coupling + courant ** 2 / 12 * c @ c @ mphi
    eye = np.eye(n)
    step = np.block([[ma + mb @ coupling, -eye], [eye, np.zeros((n, n))]])
    mu = np.linalg.eigvals(step)
    growth = np.abs(np.abs(mu) - 1).max()
    return np.sort(np.abs(np.angle(mu)))[::2][1:] / courant, growth


def cut_error(n, parts, matrix, **kw):
    got = frequencies(n, parts, matrix, **kw)
    growth = 0.0
    if isinstance(got, tuple):
        got, growth = got
    exact = np.pi * np.arange(1, n) / n
    band = exact <= THETA_BAND
    return np.max(np.abs(got[band] / exact[band] - 1) * exact[band] / THETA_BAND), growth


def fit(cuts):
    iu = np.triu_indices(REACH)

    def unpack(x):
        m = np.zeros((REACH, REACH))
        m[iu] = x
        return m + m.T - np.diag(np.diag(m))

    def residual(x):
        out = []
        for n, parts in cuts:
            a, c, _ = operators(n, parts, unpack(x))
            got = np.sort(np.sqrt(np.maximum(-np.linalg.eigvals(a + c).real, 0)))
            exact = np.pi * np.arange(n) / n
            b = (exact > 0) & (exact <= THETA_BAND * 1.05)
            out.append((got[b] / exact[b] - 1) * exact[b] / THETA_BAND)
        return np.concatenate(out)

    start = np.zeros((REACH, REACH))
    for j in range(REACH):
        for k in range(REACH):
            if j + 1 + k <= REACH:
                start[j, k] = STENCIL[j + 1 + k]
    return unpack(least_squares(residual, start[iu], method="lm", max_nfev=3000).x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="skip the fit, check the coded matrix")
    args = ap.parse_args()
    widths = (4, 8, 16, 32, 64)
    train = [(a + b, [a, b]) for a in widths for b in widths if a >= b]
    train += [(a + b + c, [a, b, c]) for a in (16, 32) for b in (4, 8, 16) for c in (4, 8)]
    held_out = [(128 + b, [128, b]) for b in widths]
    held_out += [(12, [4, 4, 4]), (20, [4, 8, 4, 4]), (60, [32, 4, 8, 16])]
    thin = [(14, [8, 4, 2]), (10, [8, 2]), (17, [16, 1])]
    matrix = CODED if args.check else fit(train)
    if not args.check:
        np.set_printoptions(precision=10)
        print("fitted kThick matrix:\n", repr(matrix))
    print("%-22s %10s %10s %14s %14s" % ("cut", "stencil", "matrix", "matrix dt=.25",
                                         "+phi,C^2 dt=.25"))
    for name, cuts in (("training", train), ("held out", held_out), ("thin (stencil)", thin)):
        worst = np.zeros(4)
        for n, parts in cuts:
            e = [cut_error(n, parts, None)[0], cut_error(n, parts, matrix)[0],
                 cut_error(n, parts, matrix, courant=0.25)[0]]
            e4, growth = cut_error(n, parts, matrix, courant=0.25, corrected=True)
            assert growth < 1e-6, "growing mode"  # 1e-8 is round-off at the DC pair
            worst = np.maximum(worst, e + [e4])
        print("%-22s %10.1e %10.1e %14.1e %14.1e" % ((name,) + tuple(worst)))


if __name__ == "__main__":
    main()
