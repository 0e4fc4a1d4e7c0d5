"""A top-down canvas painted with numpy (discs, strokes, convex polygons, arrows, antialiased): the
board art of a table, drawn the same by every front end (the window's texture, tabletop.sim.view.art;
the browser's glTF, tabletop.sim.gltf). No renderer."""
from __future__ import annotations

import numpy as np


class Canvas:
    """An (n, n, 3) image over the square [-half, half]^2 of the table plane (x right, y up,
    row 0 at +y), painted in world coordinates (metres)."""

    def __init__(self, half: float, pixels: int, color):
        self.half, self.n = half, pixels
        self.px = 2 * half / pixels
        self.rgb = np.empty((pixels, pixels, 3), np.float32)
        self.rgb[:] = color

    def window(self, lo, hi):
        """Pixel index ranges and centre coordinates of the pixels covering the box lo..hi."""
        i0 = max(int((lo[0] + self.half) / self.px) - 1, 0)
        i1 = min(int((hi[0] + self.half) / self.px) + 2, self.n)
        j0 = max(int((self.half - hi[1]) / self.px) - 1, 0)
        j1 = min(int((self.half - lo[1]) / self.px) + 2, self.n)
        x = -self.half + (np.arange(i0, i1) + 0.5) * self.px
        y = self.half - (np.arange(j0, j1) + 0.5) * self.px
        return (slice(j0, j1), slice(i0, i1)), *np.meshgrid(x, y)

    def blend(self, window, coverage: np.ndarray, color) -> None:
        a = np.clip(coverage, 0.0, 1.0)[..., None]
        self.rgb[window] = self.rgb[window] * (1 - a) + np.asarray(color, np.float32) * a

    def field(self, lo, hi, fn, color) -> None:
        """Paint where fn(x, y) (a signed distance, negative inside) is below zero."""
        window, x, y = self.window(lo, hi)
        if x.size:
            self.blend(window, 0.5 - fn(x, y) / self.px, color)

    def disc(self, center, radius: float, color, ring: float = 0.0) -> None:
        """A filled disc, or with `ring` > 0 only a ring that wide."""
        cx, cy = center[0], center[1]

        def fn(x, y):
            d = np.hypot(x - cx, y - cy) - radius
            return np.abs(d + ring / 2) - ring / 2 if ring else d
        self.field((cx - radius, cy - radius), (cx + radius, cy + radius), fn, color)

    def stroke(self, points, width: float, color) -> None:
        """A polyline `width` wide with round joints and ends."""
        pts = np.asarray(points, float)[:, :2]
        w = width / 2
        for a, b in zip(pts[:-1], pts[1:]):
            ab = b - a
            ll = max(float(ab @ ab), 1e-12)

            def fn(x, y, a=a, ab=ab, ll=ll):
                t = np.clip(((x - a[0]) * ab[0] + (y - a[1]) * ab[1]) / ll, 0.0, 1.0)
                return np.hypot(x - a[0] - t * ab[0], y - a[1] - t * ab[1]) - w
            self.field(np.minimum(a, b) - w, np.maximum(a, b) + w, fn, color)

    def polygon(self, vertices, color) -> None:
        """A convex polygon (vertices counter-clockwise)."""
        v = np.asarray(vertices, float)[:, :2]
        edges = [(v[k], v[(k + 1) % len(v)]) for k in range(len(v))]

        def fn(x, y):
            out = None
            for a, b in edges:
                e = (b - a) / np.linalg.norm(b - a)
                d = (x - a[0]) * e[1] - (y - a[1]) * e[0]     # > 0 right of the edge: outside
                out = d if out is None else np.maximum(out, d)
            return out
        self.field(v.min(axis=0), v.max(axis=0), fn, color)

    def arrow(self, tail, tip, width: float, color) -> None:
        """A flat arrow from tail to tip: a shaft and a head `width` wide."""
        tail, tip = np.asarray(tail[:2], float), np.asarray(tip[:2], float)
        d = tip - tail
        length = float(np.linalg.norm(d))
        u = d / length
        n = np.array([-u[1], u[0]])
        neck = tip - u * min(0.5 * length, 1.1 * width)
        self.stroke([tail, neck + u * 1e-4], 0.42 * width, color)
        self.polygon([neck - n * width / 2, tip, neck + n * width / 2], color)

    def uv(self, x, y):
        """Texture coordinates of table points (u right, v up)."""
        return (np.asarray(x) + self.half) / (2 * self.half), (np.asarray(y) + self.half) / (2 * self.half)


# A material's grain: a tileable greyscale image that multiplies the material's colour, so that
# wood shows its grain, cardboard its fibres and felt its nap; plastics and glass are smooth.
# Values around 1 (0.7-1.2), one tile per 1/repeats metres (GRAINS: repeats per metre).
GRAINS = {"wood": 1.6, "hardwood": 2.4, "cardboard": 6.0, "felt": 10.0}


def _periodic_noise(rng: np.random.Generator, n: int, along: float, across: float) -> np.ndarray:
    """Tileable smooth noise, zero mean and unit deviation: white noise filtered in Fourier space
    with a Gaussian `along` x and `across` y wide (in cycles per tile)."""
    f = np.fft.fftfreq(n) * n
    fx, fy = np.meshgrid(f, f)
    spectrum = np.fft.fft2(rng.standard_normal((n, n))) * np.exp(-(fx / along) ** 2 - (fy / across) ** 2)
    out = np.fft.ifft2(spectrum).real
    return (out - out.mean()) / (out.std() + 1e-12)


def grain(material: str, pixels: int = 256) -> np.ndarray | None:
    """The (pixels, pixels, 3) grain of `material` in 0..1.25 (None: a smooth material). The same
    image every time (a fixed seed per material)."""
    if material not in GRAINS:
        return None
    rng = np.random.default_rng(np.random.SeedSequence([sum(map(ord, material)), len(material)]))
    n = pixels
    y = np.linspace(0.0, 1.0, n, endpoint=False)[:, None] * np.ones((1, n))
    if material in ("wood", "hardwood"):
        wobble = _periodic_noise(rng, n, 2.0, 4.0)
        rings = 0.5 + 0.5 * np.sin(2 * np.pi * (16 * y + 0.22 * wobble))
        fibres = _periodic_noise(rng, n, 1.5, 90.0)
        v = 0.97 - 0.10 * rings ** 4 + 0.045 * fibres
    elif material == "cardboard":
        v = 0.97 + 0.018 * _periodic_noise(rng, n, 40.0, 12.0) + 0.01 * _periodic_noise(rng, n, 90.0, 90.0)
    else:                                                   # felt: a fine, even nap
        v = 0.95 + 0.05 * _periodic_noise(rng, n, 70.0, 70.0)
    v = np.clip(v, 0.0, 1.25).astype(np.float32)
    return np.repeat(v[:, :, None], 3, axis=2)
