#!/usr/bin/env python3
"""Fits the weights by which ARD reads a frequency-dependent wall's face pressure (docs/ard.md,
"Walls"; kWallFaceWeights in solvers/include/ardent/solvers/ard_layout.h).

The face pressure is sum_j w_j p((j + 1/2) h), j = 0, 1, 2, and the wall's drive goes back into
the same cells with the same weights. For a field even about the face, p = cos(k x), the read
is W(k h) = sum_j w_j cos(k h (j + 1/2)) where 1 is exact; the wall's interaction with the air
goes as W squared. The 6-point Lagrange weights (150, -25, 3) / 128 are exact to O((k h)^6) but
at ARD's 2.6 points per wavelength W is 0.927 at 0.7 f_max and 0.859 at 0.8 f_max: a wall read
and driven 14 % and 26 % too weakly there, which showed as too little absorption at normal
incidence in the top third octaves. These weights are a least-squares fit of W = 1 over
k h in [0, 1.8] (0.74 f_max) with sum w = 1 kept exactly (a uniform field is read exactly).

  python3 scripts/fit_wall_face.py    # fit, print the weights and W against the Lagrange ones

Needs numpy (scripts/setup --docs).
"""
import numpy as np

OFFSETS = np.arange(3) + 0.5
KH_FIT = 1.8
POINTS_PER_WAVELENGTH = 2.6
LAGRANGE = np.array([150.0, -25.0, 3.0]) / 128


def read(w, kh):
    return np.cos(np.outer(kh, OFFSETS)) @ w


def fit():
    kh = np.linspace(0, KH_FIT, 2001)
    a = np.cos(np.outer(kh, OFFSETS))
    # w2 = 1 - w0 - w1 keeps sum w = 1.
    m = a[:, :2] - a[:, 2:3]
    z = np.linalg.lstsq(m, 1 - a[:, 2], rcond=None)[0]
    return np.array([z[0], z[1], 1 - z.sum()])


def main():
    w = fit()
    print("weights: {%.10f, %.10f, %.10f}" % tuple(w))
    print("moment sum w (j + 1/2): fitted %.6f, Lagrange %.6f" % (w @ OFFSETS, LAGRANGE @ OFFSETS))
    print("f / f_max   k h    W fitted   W Lagrange")
    for frac in (0.1, 0.3, 0.5, 0.6, 0.7, 0.8):
        kh = 2 * np.pi * frac / POINTS_PER_WAVELENGTH
        print("%8.1f  %6.3f  %9.4f  %10.4f" % (frac, kh, read(w, [kh])[0], read(LAGRANGE, [kh])[0]))
    for frac in (0.7, 0.8):
        kh = np.linspace(0, 2 * np.pi * frac / POINTS_PER_WAVELENGTH, 1001)
        print("largest |W - 1| up to %.1f f_max: fitted %.4f, Lagrange %.4f" %
              (frac, np.abs(read(w, kh) - 1).max(), np.abs(read(LAGRANGE, kh) - 1).max()))


if __name__ == "__main__":
    main()
