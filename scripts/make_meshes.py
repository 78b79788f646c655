#!/usr/bin/env python3
"""Writes Ardent's own test and demo meshes as OBJ + MTL into data/models/.

    python3 scripts/make_meshes.py [OUTPUT_DIR]      (default: data/models next to this script)

Standard library only. Every mesh is one closed surface: vertices are shared (welded by
coordinate), every edge is used by exactly two triangles, triangles are consistently oriented with
their normals pointing into the room (towards the air), and faces are built from whole polygons so
that there are no T-junctions. The script checks all of this, and that the volume from the
divergence theorem equals the analytic volume, before it writes anything.

  lshape.obj     an 8 m x 6 m L (the rectangle [0,8]x[0,6] minus the corner [4,8]x[3,6]), 3 m high,
                 z up. Groups Floor, Ceiling, Walls.
                 V = (8*6 - 4*3) * 3 = 108 m^3, area 156 m^2.
  two-rooms.obj  two 5 m x 4 m x 3 m rooms, x in [0,5] and [5.2,10.2], y in [0,4], joined through a
                 0.2 m thick wall (x in [5,5.2]) by a 0.9 m x 2.1 m door opening (y in [1.55,2.45],
                 z in [0,2.1]) modelled as a short tunnel. Groups Floor (including the threshold),
                 Ceiling, Walls, Door (the two jambs and the soffit of the opening).
                 V = 2*5*4*3 + 0.2*0.9*2.1 = 120.378 m^3, area 185.42 m^2.
"""

import math
import os
import sys
from collections import Counter, OrderedDict

# ---------------------------------------------------------------------------------------------
# Small vector helpers


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def norm(a):
    return math.sqrt(dot(a, a))


# ---------------------------------------------------------------------------------------------
# Ear clipping of a simple planar polygon (no holes, no repeated vertices)


def _area2(p, q, r):
    return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])


def _in_triangle(pt, a, b, c):
    # Inside or on the boundary of the CCW triangle abc.
    return _area2(a, b, pt) >= 0 and _area2(b, c, pt) >= 0 and _area2(c, a, pt) >= 0


def ear_clip(pts2):
    """Triangulates a simple polygon given as 2-D points; returns index triples."""
    n = len(pts2)
    signed = sum(_area2((0.0, 0.0), pts2[i], pts2[(i + 1) % n]) for i in range(n))
    order = list(range(n)) if signed > 0 else list(reversed(range(n)))
    tris = []
    guard = 0
    while len(order) > 3:
        guard += 1
        if guard > 10 * n * n:
            raise RuntimeError("ear clipping failed (polygon not simple?)")
        m = len(order)
        for k in range(m):
            i0, i1, i2 = order[(k - 1) % m], order[k], order[(k + 1) % m]
            a, b, c = pts2[i0], pts2[i1], pts2[i2]
            if _area2(a, b, c) <= 1e-12:
                continue  # reflex or degenerate corner
            if any(_in_triangle(pts2[j], a, b, c) for j in order if j not in (i0, i1, i2)):
                continue
            tris.append((i0, i1, i2))
            del order[k]
            break
        else:
            raise RuntimeError("ear clipping found no ear")
    tris.append(tuple(order))
    return tris


# ---------------------------------------------------------------------------------------------
# Mesh building


class Mesh:
    def __init__(self):
        self.vertices = []
        self.index = {}
        self.groups = OrderedDict()  # name -> list of triangles (vertex index triples)

    def vertex(self, p):
        key = tuple(round(c, 9) for c in p)
        if key not in self.index:
            self.index[key] = len(self.vertices)
            self.vertices.append(key)
        return self.index[key]

    def polygon(self, group, pts, inward):
        """Adds a planar simple polygon (3-D points), triangulated, facing `inward`."""
        # Newell normal gives the plane; project onto the plane's dominant axes.
        nx = ny = nz = 0.0
        for i, p in enumerate(pts):
            q = pts[(i + 1) % len(pts)]
            nx += (p[1] - q[1]) * (p[2] + q[2])
            ny += (p[2] - q[2]) * (p[0] + q[0])
            nz += (p[0] - q[0]) * (p[1] + q[1])
        drop = max(range(3), key=lambda k: abs((nx, ny, nz)[k]))
        keep = [k for k in range(3) if k != drop]
        pts2 = [(p[keep[0]], p[keep[1]]) for p in pts]
        ids = [self.vertex(p) for p in pts]
        tris = self.groups.setdefault(group, [])
        for a, b, c in ear_clip(pts2):
            pa, pb, pc = pts[a], pts[b], pts[c]
            n = cross(sub(pb, pa), sub(pc, pa))
            if dot(n, inward) < 0:
                b, c = c, b
            tris.append((ids[a], ids[b], ids[c]))

    def triangles(self):
        for tris in self.groups.values():
            for t in tris:
                yield t

    def tri_area(self, t):
        a, b, c = (self.vertices[i] for i in t)
        return 0.5 * norm(cross(sub(b, a), sub(c, a)))

    def signed_volume(self):
        v = 0.0
        for t in self.triangles():
            a, b, c = (self.vertices[i] for i in t)
            v += dot(a, cross(b, c)) / 6.0
        return v

    def check(self, exact_volume, exact_area):
        directed = Counter()
        undirected = Counter()
        for t in self.triangles():
            if self.tri_area(t) < 1e-12:
                raise RuntimeError("degenerate triangle %r" % (t,))
            for k in range(3):
                a, b = t[k], t[(k + 1) % 3]
                directed[(a, b)] += 1
                undirected[(min(a, b), max(a, b))] += 1
        bad = [e for e, n in undirected.items() if n != 2]
        if bad:
            raise RuntimeError("%d edges not used by exactly two triangles, e.g. %r" % (len(bad), bad[:3]))
        if any(n != 1 for n in directed.values()) or any((b, a) not in directed for (a, b) in directed):
            raise RuntimeError("triangles are not consistently oriented")
        # Normals into the room: the divergence theorem then gives minus the volume.
        v = -self.signed_volume()
        if abs(v - exact_volume) > 1e-9 * exact_volume:
            raise RuntimeError("volume %.9f != exact %.9f (orientation wrong?)" % (v, exact_volume))
        area = sum(self.tri_area(t) for t in self.triangles())
        if abs(area - exact_area) > 1e-9 * exact_area:
            raise RuntimeError("area %.9f != exact %.9f" % (area, exact_area))
        return v, area

    def write(self, directory, name, header, colours):
        obj = os.path.join(directory, name + ".obj")
        mtl = name + ".mtl"
        with open(obj, "w") as f:
            for line in header:
                f.write(("# " + line).rstrip() + "\n")
            f.write("mtllib %s\n" % mtl)
            for p in self.vertices:
                f.write("v %s %s %s\n" % tuple(_fmt(c) for c in p))
            for group, tris in self.groups.items():
                f.write("o %s\nusemtl %s\n" % (group, group))
                for t in tris:
                    f.write("f %d %d %d\n" % tuple(i + 1 for i in t))
        with open(os.path.join(directory, mtl), "w") as f:
            f.write("# Materials of %s.obj (display colours only; acoustics come from the scene)\n" % name)
            for group in self.groups:
                f.write("\nnewmtl %s\nKd %.3f %.3f %.3f\n" % ((group,) + colours[group]))
        return obj


def _fmt(c):
    s = ("%.6f" % c).rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def group_areas(mesh):
    return OrderedDict((g, sum(mesh.tri_area(t) for t in tris)) for g, tris in mesh.groups.items())


COLOURS = {
    "Floor": (0.55, 0.40, 0.30),
    "Ceiling": (0.90, 0.90, 0.90),
    "Walls": (0.80, 0.78, 0.72),
    "Door": (0.45, 0.30, 0.20),
}

UP, DOWN = (0.0, 0.0, 1.0), (0.0, 0.0, -1.0)

# ---------------------------------------------------------------------------------------------
# The models


def extrude_walls(mesh, outline, height):
    """Vertical walls, one quad per edge of a floor outline (x, y), facing the room.

    The outline runs counter-clockwise seen from above, so the room is to the left of each edge."""
    n = len(outline)
    for i in range(n):
        (x0, y0), (x1, y1) = outline[i], outline[(i + 1) % n]
        inward = (-(y1 - y0), x1 - x0, 0.0)  # left normal
        mesh.polygon("Walls", [(x0, y0, 0.0), (x1, y1, 0.0), (x1, y1, height), (x0, y0, height)], inward)


def make_lshape():
    H = 3.0
    outline = [(0, 0), (8, 0), (8, 3), (4, 3), (4, 6), (0, 6)]  # counter-clockwise
    m = Mesh()
    m.polygon("Floor", [(x, y, 0.0) for x, y in outline], UP)
    m.polygon("Ceiling", [(x, y, H) for x, y in outline], DOWN)
    extrude_walls(m, outline, H)
    exact_v = (8 * 6 - 4 * 3) * H
    exact_a = 2 * (8 * 6 - 4 * 3) + (8 + 3 + 4 + 3 + 4 + 6) * H
    return m, exact_v, exact_a, [
        "Ardent test room: an L-shaped room, z up, metres (generated by scripts/make_meshes.py).",
        "Floor outline (x, y): (0,0) (8,0) (8,3) (4,3) (4,6) (0,6), i.e. the 8 x 6 m rectangle",
        "minus the 4 x 3 m corner [4,8]x[3,6]; floor at z = 0, ceiling at z = 3.",
        "Closed, watertight (every edge shared by two triangles), normals point into the room.",
        "Exact volume: (8*6 - 4*3) * 3 = 108 m^3.",
        "Exact area: floor 36 + ceiling 36 + walls 28 * 3 = 84, total 156 m^2.",
    ]


def make_two_rooms():
    H, T = 3.0, 0.2                 # room height, dividing wall thickness
    A0, A1 = 0.0, 5.0               # room A: x in [A0, A1]
    B0, B1 = A1 + T, A1 + T + 5.0   # room B: x in [B0, B1]
    W = 4.0                         # both rooms: y in [0, W]
    D0, D1, DH = 1.55, 2.45, 2.1    # door: y in [D0, D1], z in [0, DH]
    m = Mesh()
    # One floor polygon: room A, the threshold, room B (counter-clockwise from above).
    floor = [(A0, 0), (A1, 0), (A1, D0), (B0, D0), (B0, 0), (B1, 0), (B1, W), (B0, W), (B0, D1),
             (A1, D1), (A1, W), (A0, W)]
    m.polygon("Floor", [(x, y, 0.0) for x, y in floor], UP)
    for x0, x1 in ((A0, A1), (B0, B1)):
        m.polygon("Ceiling", [(x0, 0, H), (x1, 0, H), (x1, W, H), (x0, W, H)], DOWN)
    # Outer walls of each room.
    for x0, x1, inward_x in ((A0, A1, 1.0), (B0, B1, -1.0)):
        m.polygon("Walls", [(x0, 0, 0), (x1, 0, 0), (x1, 0, H), (x0, 0, H)], (0, 1, 0))
        m.polygon("Walls", [(x0, W, 0), (x1, W, 0), (x1, W, H), (x0, W, H)], (0, -1, 0))
        xo = x0 if inward_x > 0 else x1  # the room's outer end wall
        m.polygon("Walls", [(xo, 0, 0), (xo, W, 0), (xo, W, H), (xo, 0, H)], (inward_x, 0, 0))
    # The two faces of the dividing wall: U-shaped polygons around the opening.
    for x, inward_x in ((A1, -1.0), (B0, 1.0)):
        yz = [(0, 0), (D0, 0), (D0, DH), (D1, DH), (D1, 0), (W, 0), (W, H), (0, H)]
        m.polygon("Walls", [(x, y, z) for y, z in yz], (inward_x, 0, 0))
    # The door reveal: two jambs and the soffit of the tunnel through the wall.
    m.polygon("Door", [(A1, D0, 0), (B0, D0, 0), (B0, D0, DH), (A1, D0, DH)], (0, 1, 0))
    m.polygon("Door", [(A1, D1, 0), (B0, D1, 0), (B0, D1, DH), (A1, D1, DH)], (0, -1, 0))
    m.polygon("Door", [(A1, D0, DH), (B0, D0, DH), (B0, D1, DH), (A1, D1, DH)], DOWN)
    exact_v = 2 * 5 * 4 * H + T * (D1 - D0) * DH
    exact_a = (2 * 20 + T * (D1 - D0)) + 2 * 20 + 2 * (2 * 15 + 12 + (12 - (D1 - D0) * DH)) \
        + 2 * T * DH + T * (D1 - D0)
    return m, exact_v, exact_a, [
        "Ardent test room: two 5 x 4 x 3 m rooms joined by a door, z up, metres",
        "(generated by scripts/make_meshes.py).",
        "Room A: x in [0,5], room B: x in [5.2,10.2]; both y in [0,4], z in [0,3].",
        "Dividing wall x in [5,5.2] (0.2 m thick) with a door opening y in [1.55,2.45] (0.9 m),",
        "z in [0,2.1], modelled as a tunnel: the air is one closed surface.",
        "Groups: Floor (both rooms and the threshold), Ceiling, Walls, Door (jambs and soffit).",
        "Closed, watertight (every edge shared by two triangles), normals point into the room.",
        "Exact volume: 2 * 5*4*3 + 0.2*0.9*2.1 = 120 + 0.378 = 120.378 m^3.",
        "Exact area: floor 40.18 + ceiling 40 + walls 104.22 + door reveal 1.02 = 185.42 m^2.",
    ]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "data", "models")
    os.makedirs(out, exist_ok=True)
    for name, make in (("lshape", make_lshape), ("two-rooms", make_two_rooms)):
        mesh, exact_v, exact_a, header = make()
        v, a = mesh.check(exact_v, exact_a)
        areas = group_areas(mesh)
        header = header + [
            "%d vertices, %d triangles; group areas (m^2): %s" % (
                len(mesh.vertices), sum(len(t) for t in mesh.groups.values()),
                ", ".join("%s %.4g" % (g, x) for g, x in areas.items())),
            "Licence: part of Ardent (generated geometry, no third-party content).",
        ]
        path = mesh.write(out, name, header, COLOURS)
        print("%s: %d triangles, volume %.6f m^3, area %.6f m^2" % (
            os.path.normpath(path), sum(len(t) for t in mesh.groups.values()), v, a))


if __name__ == "__main__":
    main()
