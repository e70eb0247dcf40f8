"""Paraxial imaging on an optical rail by ray-transfer (ABCD) matrices.

Positions are along the rail axis in metres, increasing from the object (an illuminated slide) towards the
screen; a ray is (height y in m, angle θ in rad). The object-to-plane matrix ``[[A, B], [C, D]]`` maps an
object ray to that plane: the image of the slide is sharp where ``B = 0``, with magnification ``A`` there.
The aperture stop is the lens that limits the cone of rays from the object's axial point; its marginal ray
gives the blur circle on the screen and the image-side cone angle that sets the illuminance.

Diffraction (a laser's beam through a grating or a single slit) is far-field: :class:`Grating` puts its
orders as spots where the grating equation sends them, :class:`Slit` spreads the beam by its Fraunhofer
intensity; both are exact in the angle (no small-angle approximation), the screen a distance L downstream
showing a ray at angle θ at L tan θ from the axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Ray2x2 = tuple[float, float, float, float]  # (A, B, C, D)

_IDENTITY: Ray2x2 = (1.0, 0.0, 0.0, 1.0)


def _mul(outer: Ray2x2, inner: Ray2x2) -> Ray2x2:
    a, b, c, d = outer
    e, f, g, h = inner
    return (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)


def free_space(distance: float) -> Ray2x2:
    return (1.0, distance, 0.0, 1.0)


@dataclass(frozen=True)
class ThinLens:
    """A thin lens at ``position`` (m) with focal length (m), clear aperture diameter (m) and transmission."""

    position: float
    focal_length: float
    aperture: float
    transmission: float = 0.92

    def matrix(self) -> Ray2x2:
        return (1.0, 0.0, -1.0 / self.focal_length, 1.0)


@dataclass(frozen=True)
class Plate:
    """A plane-parallel glass plate starting at ``position`` (m), ``thickness`` (m), refractive ``index``.

    As a thin element it is free space of reduced length t/n (the remaining t − t/n is removed from the path
    where the plate stands), so it shifts the image downstream by t (1 − 1/n)."""

    position: float
    thickness: float
    index: float
    transmission: float = 0.92

    def matrix(self) -> Ray2x2:
        # Air gap t replaced by glass: free(t/n) · free(−t) = free(t/n − t).
        return free_space(self.thickness / self.index - self.thickness)


Element = ThinLens | Plate


@dataclass(frozen=True)
class Image:
    """The image of the slide: position on the rail (m; ``inf`` at infinity), magnification (negative when
    inverted) and whether it is real (light converges to it)."""

    position: float
    magnification: float
    real: bool


@dataclass(frozen=True)
class Rail:
    """An illuminated slide at ``object_position``, elements in any order, and a screen (all in m)."""

    object_position: float
    elements: tuple[Element, ...]
    screen_position: float

    def _sorted(self) -> list[Element]:
        """The elements between the object and the screen, in order along the rail."""
        between = (e for e in self.elements if self.object_position < e.position < self.screen_position)
        return sorted(between, key=lambda e: e.position)

    def matrix_to(self, position: float) -> Ray2x2:
        """The ray-transfer matrix from the object to the plane at ``position`` (just after any element
        there)."""
        m = _IDENTITY
        z = self.object_position
        for element in self._sorted():
            if element.position > position:
                break
            m = _mul(element.matrix(), _mul(free_space(element.position - z), m))
            z = element.position
        return _mul(free_space(position - z), m)

    def _last_position(self) -> float:
        elements = self._sorted()
        return elements[-1].position if elements else self.object_position

    def image(self) -> Image:
        """The image formed after the last element: where ``B + d D = 0`` along the final free path."""
        z = self._last_position()
        a, b, c, d = self.matrix_to(z)
        if d == 0.0:
            return Image(math.inf, math.inf, False)
        distance = -b / d
        return Image(z + distance, a + distance * c, distance >= 0.0)

    def _stop(self) -> tuple[ThinLens, float] | None:
        """The aperture stop and the largest object-side angle (rad) of a ray from the axial object point
        that passes every lens; None without a lens."""
        best: tuple[ThinLens, float] | None = None
        for element in self._sorted():
            if isinstance(element, ThinLens):
                b = self.matrix_to(element.position)[1]
                angle = 0.5 * element.aperture / abs(b) if b != 0.0 else math.inf
                if best is None or angle < best[1]:
                    best = (element, angle)
        return best

    def blur_diameter(self) -> float:
        """The blur circle's diameter on the screen (m): the marginal ray's height there, doubled.

        For one lens of aperture a this is ``a |1 − s_screen / s_image|``: zero at the image plane and linear
        in the screen's distance from it."""
        stop = self._stop()
        if stop is None or stop[1] == math.inf:
            return math.inf
        return 2.0 * stop[1] * abs(self.matrix_to(self.screen_position)[1])

    def screen_scale(self) -> float:
        """Screen height per object height of the blurred image: the chief ray's height through the stop's
        centre (equal to the magnification when in focus)."""
        stop = self._stop()
        a, b, _, _ = self.matrix_to(self.screen_position)
        if stop is None:
            return a
        a_s, b_s, _, _ = self.matrix_to(stop[0].position)
        return a if b_s == 0.0 else a - b * a_s / b_s  # the chief ray leaves y at θ = −(A_s/B_s) y

    def transmission(self) -> float:
        product = 1.0
        for element in self._sorted():
            product *= element.transmission
        return product

    def illuminance(self, luminance: float, ambient: float = 0.0) -> float:
        """Illuminance on the screen (lx, or W/m² for a radiance) from a slide of uniform ``luminance``
        (cd/m²), plus ``ambient``.

        ``E = π L τ u'²`` with u' the image-side cone half-angle of the marginal ray (the image-space form of
        the camera equation, small angles). By the Lagrange invariant u' = u / m at the image, so E falls as
        1/m² with the magnification."""
        stop = self._stop()
        if stop is None or stop[1] == math.inf:
            return ambient
        image_angle = stop[1] * self.matrix_to(self.screen_position)[3]
        return math.pi * luminance * self.transmission() * image_angle * image_angle + ambient

    def object_blur(self) -> float:
        """The blur circle referred back to the slide (m): the width a renderer blurs the slide's texture by
        before scaling it by :meth:`screen_scale`; divide by the slide's pixel pitch for pixels."""
        scale = self.screen_scale()
        return math.inf if scale == 0.0 else self.blur_diameter() / abs(scale)


@dataclass(frozen=True)
class Grating:
    """A transmission grating at ``position`` (m) with ``lines_per_m`` rulings, its slits ``opening`` of the
    period wide (the orders' strengths follow from it)."""

    position: float
    lines_per_m: float
    opening: float = 1.0 / 3.0

    def orders(self, wavelength: float, distance: float) -> list[tuple[int, float, float]]:
        """Every order m that leaves the grating (|m λ / d| < 1) as (m, its offset on a screen ``distance``
        downstream (m, towards +y for m > 0), its power relative to the straight-through beam's): the
        grating equation sin θ = m λ N, a spot at L tan θ, power sinc²(m · opening) of the slits' envelope."""
        highest = math.ceil(1.0 / (wavelength * self.lines_per_m)) - 1
        spots = []
        for m in range(-highest, highest + 1):
            sine = m * wavelength * self.lines_per_m
            spots.append((m, distance * sine / math.sqrt(1.0 - sine * sine), _sinc2(m * self.opening)))
        return spots


@dataclass(frozen=True)
class Slit:
    """A single slit of ``width`` (m) at ``position`` (m)."""

    position: float
    width: float

    def intensity(self, offset: float, wavelength: float, distance: float) -> float:
        """Fraunhofer intensity on a screen ``distance`` downstream at ``offset`` from the axis, relative to
        the centre's: sinc²(a sin θ / λ) with tan θ = offset / distance (zero where a sin θ = m λ, m ≠ 0)."""
        sine = offset / math.hypot(offset, distance)
        return _sinc2(self.width * sine / wavelength)

    def dark_fringe(self, order: int, wavelength: float, distance: float) -> float:
        """The offset of the dark fringe of ``order`` (≠ 0, sign for the side) on the screen."""
        sine = order * wavelength / self.width
        return distance * sine / math.sqrt(1.0 - sine * sine)


Diffracting = Grating | Slit


def _sinc2(x: float) -> float:
    """(sin πx / πx)²."""
    if x == 0.0:
        return 1.0
    value = math.sin(math.pi * x) / (math.pi * x)
    return value * value
