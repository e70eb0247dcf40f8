"""Lumped DC circuits by modified nodal analysis (MNA), advanced by exact exponential steps.

Unknowns of the algebraic system are the node voltages (ground ``"gnd"`` is 0 V) and the currents of the
voltage-type branches: voltage sources, closed switches, ammeters and capacitors. A capacitor enters as a
voltage source equal to its state voltage u, so the solution is affine in u and the state obeys
``C du/dt = i_C(u) = A u + b`` exactly; :class:`~.linear.ExactStepper` advances it at any step size. The
stepper is rebuilt only when the topology or a resistance changes; a source value only changes b.

LEDs are Shockley junctions, treated quasi-statically (no junction capacitance): each query solves the
nonlinear operating point by damped Newton; with capacitors present each step is exact for the circuit
linearized at the operating point where the step starts (exponential Euler), so it stays stable at any step.

Sign convention (SPICE's passive one): ``current(name)`` is the current through the element from its first
terminal to its second, so a source delivering power has a negative current. Meters are ideal: a voltmeter
is an open circuit, an ammeter a zero-volt branch, an ohmmeter a current source of known test current.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from actloop.suites.lab.physics.linear import (
    LU,
    ExactStepper,
    SingularMatrixError,
    exp,
    log,
    lu_factor,
    zeros,
)

GROUND = "gnd"

# CODATA 2018 exact SI constants.
PLANCK = 6.62607015e-34  # J s
LIGHT_SPEED = 299792458.0  # m/s
ELEMENTARY_CHARGE = 1.602176634e-19  # C
BOLTZMANN = 1.380649e-23  # J/K

_GMIN = 1e-12  # S across every junction, as SPICE's GMIN: keeps a reverse-biased LED's node defined
_NEWTON_TOL = 1e-12  # V, largest junction-voltage change of a converged Newton iteration
_NEWTON_MAX = 200
_CHORD_SLACK = 1e-3  # a factored Jacobian serves while each junction's slope is within 0.1 % of it


class CircuitError(ValueError):
    """The circuit has no unique solution (a loop of voltage branches, a current source into an open
    circuit) or refers to an unknown node or element."""


@dataclass(frozen=True)
class Junction:
    """A Shockley junction ``I = Is (exp(V / (n V_T)) − 1)``; V in volts, I in amperes."""

    saturation_current: float  # Is, A
    ideality: float  # n
    temperature: float = 298.15  # K

    @property
    def n_vt(self) -> float:
        return self.ideality * BOLTZMANN * self.temperature / ELEMENTARY_CHARGE

    @classmethod
    def led(
        cls,
        wavelength: float,
        *,
        ideality: float = 2.0,
        offset: float = 0.1,
        at_current: float = 1e-3,
        temperature: float = 298.15,
    ) -> Junction:
        """An LED whose forward voltage at ``at_current`` (A) is the photon energy ``h c / (q λ)`` less
        ``offset`` (V): real LEDs conduct 1 mA a little below their photon energy (the band gap less the
        thermal energy the carriers bring in), and a constant offset keeps V(1 mA) linear in 1/λ, so known
        LEDs calibrate an unknown one. λ in metres; ideality 2 is typical of LED recombination currents."""
        forward = PLANCK * LIGHT_SPEED / (ELEMENTARY_CHARGE * wavelength) - offset
        n_vt = ideality * BOLTZMANN * temperature / ELEMENTARY_CHARGE
        return cls(at_current / (exp(forward / n_vt) - 1.0), ideality, temperature)

    def current(self, volts: float) -> float:
        return self.saturation_current * (exp(volts / self.n_vt) - 1.0)

    def conductance(self, volts: float) -> float:
        return self.saturation_current * exp(volts / self.n_vt) / self.n_vt

    def limit(self, new: float, old: float) -> float:
        """SPICE's pnjlim: a Newton update past the critical voltage moves along the logarithm, so the
        exponential never overflows and Newton converges from any start (Nagel 1975, SPICE2 thesis §4)."""
        n_vt = self.n_vt
        critical = n_vt * log(n_vt / (math.sqrt(2.0) * self.saturation_current))
        if new > critical and abs(new - old) > 2.0 * n_vt:
            if old > 0.0:
                arg = 1.0 + (new - old) / n_vt
                return old + n_vt * log(arg) if arg > 0.0 else critical
            return n_vt * log(new / n_vt)
        return new


@dataclass
class _Element:
    kind: str  # resistor, capacitor, vsource, isource, switch, junction, voltmeter, ammeter, ohmmeter
    a: str
    b: str
    value: float = 0.0  # ohms, farads, volts, amperes or test amperes
    on: bool = True  # a source switched on, a switch closed
    junction: Junction | None = None


_VOLTAGE_BRANCHES = ("vsource", "switch", "ammeter", "capacitor")


@dataclass
class _System:
    """The MNA system of one topology: unknown layout, the linear matrix and its cached factors."""

    nodes: dict[str, int]  # node → row; pinned floating nodes included, ground absent
    branches: dict[str, int]  # voltage-type element (or pin) → row
    matrix: list[list[float]]  # linear part (no junction conductances)
    capacitors: list[str]
    junctions: list[str]
    open_meters: set[str]  # ohmmeters whose terminals no element connects: they read infinity
    lu: LU | None = None  # factors of ``matrix`` when there are no junctions
    stepper: tuple[tuple[float, ...], ExactStepper] | None = None  # keyed by junction conductances
    forcing: list[float] | None = None  # b of a circuit without junctions, until a source value changes
    chord: tuple[list[float], LU] | None = None  # the junction slopes last factored, and the factors


class Circuit:
    """A circuit on fixed nodes with a fixed step ``dt`` (s).

    Nodes are declared up front (``"gnd"`` is implicit), so a misspelt terminal fails loudly. State: the
    capacitor voltages, set by ``v0`` and advanced by :meth:`step`.
    """

    def __init__(self, nodes: Iterable[str], dt: float) -> None:
        self.nodes = [n for n in dict.fromkeys(nodes) if n != GROUND]
        self.dt = dt
        self.time = 0.0
        self._elements: dict[str, _Element] = {}
        self._u: dict[str, float] = {}  # capacitor voltages (V)
        self._system: _System | None = None
        self._solution: tuple[list[float], list[float]] | None = None  # MNA solution, junction volts
        # Newton's warm start: the junction voltages where the last step started. Only steps write it, so
        # what is read (and when) never changes a later result.
        self._guess: dict[str, float] = {}

    # -- building -------------------------------------------------------------------------------------------
    def _add(self, name: str, element: _Element) -> None:
        if name in self._elements:
            raise CircuitError(f"element {name!r} already exists")
        for node in (element.a, element.b):
            if node != GROUND and node not in self.nodes:
                raise CircuitError(f"element {name!r}: unknown node {node!r}")
        self._elements[name] = element
        self._changed()

    def add_resistor(self, name: str, a: str, b: str, ohms: float) -> None:
        if not ohms > 0.0:
            raise CircuitError(f"resistor {name!r}: resistance must be positive (use a switch for 0 Ω)")
        self._add(name, _Element("resistor", a, b, ohms))

    def add_capacitor(self, name: str, a: str, b: str, farads: float, v0: float = 0.0) -> None:
        """A capacitor charged to ``v0`` (V, a minus b)."""
        self._add(name, _Element("capacitor", a, b, farads))
        self._u[name] = v0

    def add_voltage_source(self, name: str, pos: str, neg: str, volts: float, on: bool = True) -> None:
        """An ideal source holding ``pos − neg = volts`` while on; off, its terminals are open."""
        self._add(name, _Element("vsource", pos, neg, volts, on))

    def add_current_source(self, name: str, pos: str, neg: str, amps: float, on: bool = True) -> None:
        """An ideal source driving ``amps`` out of ``pos`` into the circuit and back in at ``neg``."""
        self._add(name, _Element("isource", pos, neg, amps, on))

    def add_switch(self, name: str, a: str, b: str, closed: bool = False) -> None:
        """An ideal switch: a zero-volt branch when closed, nothing when open."""
        self._add(name, _Element("switch", a, b, on=closed))

    def add_led(self, name: str, anode: str, cathode: str, junction: Junction) -> None:
        self._add(name, _Element("junction", anode, cathode, junction=junction))

    def add_voltmeter(self, name: str, pos: str, neg: str) -> None:
        self._add(name, _Element("voltmeter", pos, neg))

    def add_ammeter(self, name: str, pos: str, neg: str) -> None:
        """Reads the current entering ``pos`` and leaving at ``neg``."""
        self._add(name, _Element("ammeter", pos, neg))

    def add_ohmmeter(self, name: str, pos: str, neg: str, test_current: float = 1e-3) -> None:
        """Drives ``test_current`` (A) out of ``pos``; reads ``(v_pos − v_neg) / test_current``."""
        self._add(name, _Element("ohmmeter", pos, neg, test_current))

    # -- changing -------------------------------------------------------------------------------------------
    def _element(self, name: str, *kinds: str) -> _Element:
        element = self._elements.get(name)
        if element is None or element.kind not in kinds:
            raise CircuitError(f"no {' or '.join(kinds)} named {name!r}")
        return element

    def _changed(self, topology: bool = True) -> None:
        if topology:
            self._system = None
        elif self._system is not None:
            self._system.forcing = None
        self._solution = None

    def set_switch(self, name: str, closed: bool) -> None:
        element = self._element(name, "switch")
        if element.on != closed:
            element.on = closed
            self._changed()

    def set_source(self, name: str, volts: float | None = None, on: bool | None = None) -> None:
        """Change a voltage or current source's value (V or A) or switch it on or off."""
        element = self._element(name, "vsource", "isource")
        if on is not None and on != element.on:
            element.on = on
            self._changed()
        if volts is not None and volts != element.value:
            element.value = volts
            self._changed(topology=False)

    def set_resistance(self, name: str, ohms: float) -> None:
        element = self._element(name, "resistor")
        if not ohms > 0.0:
            raise CircuitError(f"resistor {name!r}: resistance must be positive")
        if ohms != element.value:
            element.value = ohms
            self._changed()

    # -- the MNA system -------------------------------------------------------------------------------------
    def _build(self) -> _System:
        if self._system is not None:
            return self._system
        elements = self._elements
        parent = {n: n for n in [GROUND, *self.nodes]}

        def find(n: str) -> str:
            while parent[n] != n:
                parent[n] = parent[parent[n]]
                n = parent[n]
            return n

        for e in elements.values():
            conducts = e.kind in ("resistor", "capacitor", "junction", "ammeter") or (
                e.kind in ("vsource", "switch") and e.on
            )
            if conducts:
                parent[find(e.a)] = find(e.b)
        open_meters: set[str] = set()
        for name, e in elements.items():
            if e.kind in ("isource", "ohmmeter") and e.on and find(e.a) != find(e.b):
                if e.kind == "isource":
                    raise CircuitError(f"current source {name!r} drives an open circuit")
                open_meters.add(name)
        # A part connected to nothing grounded has no defined potential: pin one of its nodes to 0 V.
        pins: dict[str, str] = {}
        for node in self.nodes:
            root = find(node)
            if root != find(GROUND):
                pins.setdefault(root, node)
        node_rows = {n: i for i, n in enumerate(self.nodes)}
        branch_names = [n for n, e in elements.items() if e.kind in _VOLTAGE_BRANCHES and e.on]
        branch_names += [f"pin:{node}" for node in pins.values()]
        size = len(node_rows) + len(branch_names)
        branches = {n: len(node_rows) + k for k, n in enumerate(branch_names)}
        matrix = zeros(size, size)
        for name, e in elements.items():
            if e.kind == "resistor":
                _stamp_conductance(matrix, node_rows, e.a, e.b, 1.0 / e.value)
            elif name in branches:
                _stamp_branch(matrix, node_rows, branches[name], e.a, e.b)
        for node in pins.values():
            _stamp_branch(matrix, node_rows, branches[f"pin:{node}"], node, GROUND)
        junctions = [n for n, e in elements.items() if e.kind == "junction"]
        system = _System(
            node_rows,
            branches,
            matrix,
            capacitors=[n for n, e in elements.items() if e.kind == "capacitor"],
            junctions=junctions,
            open_meters=open_meters,
        )
        if not junctions:
            system.lu = self._factor(matrix)
        self._system = system
        return system

    @staticmethod
    def _factor(matrix: list[list[float]]) -> LU:
        try:
            return lu_factor(matrix)
        except SingularMatrixError:
            raise CircuitError(
                "the circuit has no unique solution: a loop of voltage sources, closed switches, ammeters "
                "and capacitors, or a node fed only by current sources"
            ) from None

    def _companions(
        self, system: _System, volts: list[float], slopes: list[float] | None = None
    ) -> tuple[list[float], list[float]]:
        """Each junction's Newton companion at its voltage: conductance g (its slope there, or ``slopes``)
        and current ``I(v) − g v``."""
        g, i_eq = [], []
        for k, (name, v) in enumerate(zip(system.junctions, volts, strict=True)):
            junction = self._elements[name].junction
            assert junction is not None
            gj = junction.conductance(v) + _GMIN if slopes is None else slopes[k]
            g.append(gj)
            i_eq.append(junction.current(v) + _GMIN * v - gj * v)
        return g, i_eq

    def _chord(self, system: _System, volts: list[float]) -> tuple[list[float], LU]:
        """The factored matrix for a Newton step at ``volts``: the one the last step kept while every
        junction's slope stays within _CHORD_SLACK of it (a chord step: each iteration shrinks the error by
        at least that factor, and the solution is the same), else one factored at the slopes here."""
        g, _ = self._companions(system, volts)
        if system.chord is not None:
            slopes, lu = system.chord
            if all(abs(a - b) <= _CHORD_SLACK * a for a, b in zip(g, slopes, strict=True)):
                return slopes, lu
        return g, self._linear_lu(system, g)

    def _keep_chord(self, system: _System, volts: list[float]) -> None:
        """After a step: keep the factors at this operating point unless the kept ones still serve. Only
        steps keep factors, so what is read (and when) never changes a later result."""
        system.chord = self._chord(system, volts)

    def _linear_lu(self, system: _System, g: list[float]) -> LU:
        if system.lu is not None:
            return system.lu
        matrix = [row[:] for row in system.matrix]
        for name, gj in zip(system.junctions, g, strict=True):
            e = self._elements[name]
            _stamp_conductance(matrix, system.nodes, e.a, e.b, gj)
        return self._factor(matrix)

    def _rhs(
        self, system: _System, u: dict[str, float], i_eq: list[float], *, sources: bool = True
    ) -> list[float]:
        rhs = [0.0] * (len(system.nodes) + len(system.branches))
        nodes = system.nodes
        for name, e in self._elements.items():
            if name in system.open_meters or not e.on:
                continue
            if e.kind == "capacitor":
                rhs[system.branches[name]] = u[name]
            elif not sources:
                continue
            elif e.kind == "vsource":
                rhs[system.branches[name]] = e.value
            elif e.kind in ("isource", "ohmmeter"):
                _inject(rhs, nodes, e.a, e.value)
                _inject(rhs, nodes, e.b, -e.value)
        for name, current in zip(system.junctions, i_eq, strict=True):
            e = self._elements[name]
            _inject(rhs, nodes, e.a, -current)
            _inject(rhs, nodes, e.b, current)
        return rhs

    def _junction_volts(self, system: _System, y: list[float]) -> list[float]:
        return [self._volts(system, y, self._elements[n].a, self._elements[n].b) for n in system.junctions]

    @staticmethod
    def _volts(system: _System, y: list[float], a: str, b: str) -> float:
        va = y[system.nodes[a]] if a != GROUND else 0.0
        vb = y[system.nodes[b]] if b != GROUND else 0.0
        return va - vb

    def _operating_point(self, system: _System, u: dict[str, float]) -> tuple[list[float], list[float]]:
        """The MNA solution at capacitor voltages u, and the junction voltages it was linearized at."""
        volts = [self._guess.get(n, 0.0) for n in system.junctions]
        for _ in range(_NEWTON_MAX):
            slopes, lu = self._chord(system, volts)
            _, i_eq = self._companions(system, volts, slopes)
            y = lu.solve(self._rhs(system, u, i_eq))
            new = self._junction_volts(system, y)
            if all(abs(n - v) <= _NEWTON_TOL for n, v in zip(new, volts, strict=True)):
                return y, volts
            volts = [
                self._junction(name).limit(n, v)
                for name, n, v in zip(system.junctions, new, volts, strict=True)
            ]
        raise CircuitError(f"the junctions' operating point did not converge in {_NEWTON_MAX} iterations")

    def _junction(self, name: str) -> Junction:
        junction = self._elements[name].junction
        assert junction is not None
        return junction

    def _solve(self) -> tuple[_System, list[float], list[float]]:
        system = self._build()
        if self._solution is None:
            self._solution = self._operating_point(system, self._u)
        return system, *self._solution

    # -- time -----------------------------------------------------------------------------------------------
    def _stepper(self, system: _System, g: list[float]) -> ExactStepper:
        """The exact stepper of ``du/dt = A u + b`` of the circuit linearized with junction conductances g."""
        key = tuple(g)
        if system.stepper is not None and system.stepper[0] == key:
            return system.stepper[1]
        lu = self._linear_lu(system, g)
        caps = system.capacitors
        columns = []  # ∂i_C/∂u_j: solve with a unit capacitor voltage j and every source at zero
        for cap in caps:
            unit = dict.fromkeys(caps, 0.0)
            unit[cap] = 1.0
            y = lu.solve(self._rhs(system, unit, [0.0] * len(g), sources=False))
            columns.append([y[system.branches[c]] / self._elements[c].value for c in caps])
        stepper = ExactStepper([list(row) for row in zip(*columns, strict=True)], self.dt)
        system.stepper = (key, stepper)
        return stepper

    def _forcing(self, system: _System, g: list[float], i_eq: list[float]) -> list[float]:
        """b = i_C / C with every capacitor at 0 V."""
        y = self._linear_lu(system, g).solve(self._rhs(system, dict.fromkeys(system.capacitors, 0.0), i_eq))
        return [y[system.branches[c]] / self._elements[c].value for c in system.capacitors]

    def step(self, n: int = 1) -> None:
        """Advance n steps of ``dt``. Without junctions the n steps are one exact map (O(log n) work)."""
        system = self._build()
        self.time += n * self.dt
        caps = system.capacitors
        if not system.junctions:
            if caps:
                if system.forcing is None:
                    system.forcing = self._forcing(system, [], [])
                state = self._stepper(system, []).advance([self._u[c] for c in caps], system.forcing, n)
                self._u.update(zip(caps, state, strict=True))
                self._solution = None
            return
        for _ in range(n if caps else 1):
            _, _, volts = self._solve()
            self._guess.update(zip(system.junctions, volts, strict=True))
            self._keep_chord(system, volts)
            if caps:
                g, i_eq = self._companions(system, volts)
                state = self._stepper(system, g).step(
                    [self._u[c] for c in caps], self._forcing(system, g, i_eq)
                )
                self._u.update(zip(caps, state, strict=True))
                self._solution = None

    # -- reading --------------------------------------------------------------------------------------------
    def node_voltage(self, node: str) -> float:
        """The voltage of a node against ground (V); a node of an unconnected part reads against that part's
        first node."""
        if node == GROUND:
            return 0.0
        if node not in self.nodes:
            raise CircuitError(f"unknown node {node!r}")
        system, y, _ = self._solve()
        return y[system.nodes[node]]

    def capacitor_voltage(self, name: str) -> float:
        self._element(name, "capacitor")
        return self._u[name]

    def current(self, name: str) -> float:
        """The current through an element from its first terminal to its second (A)."""
        e = self._elements.get(name)
        if e is None:
            raise CircuitError(f"no element named {name!r}")
        if e.kind in ("voltmeter", "ohmmeter") or not e.on:
            return 0.0
        if e.kind == "isource":
            return -e.value
        system, y, _ = self._solve()
        if e.kind == "resistor":
            return self._volts(system, y, e.a, e.b) / e.value
        if e.kind == "junction":
            assert e.junction is not None
            v = self._volts(system, y, e.a, e.b)
            return e.junction.current(v) + _GMIN * v
        return y[system.branches[name]]

    def reading(self, meter: str) -> float:
        """What an ideal meter shows: volts, amperes or ohms (``inf`` for an ohmmeter across an open)."""
        e = self._element(meter, "voltmeter", "ammeter", "ohmmeter")
        if e.kind == "ammeter":
            return self.current(meter)
        system, y, _ = self._solve()
        if e.kind == "voltmeter":
            return self._volts(system, y, e.a, e.b)
        if meter in system.open_meters:
            return math.inf
        return self._volts(system, y, e.a, e.b) / e.value


def _stamp_conductance(matrix: list[list[float]], nodes: dict[str, int], a: str, b: str, g: float) -> None:
    ia, ib = nodes.get(a), nodes.get(b)
    if ia is not None:
        matrix[ia][ia] += g
    if ib is not None:
        matrix[ib][ib] += g
    if ia is not None and ib is not None:
        matrix[ia][ib] -= g
        matrix[ib][ia] -= g


def _stamp_branch(matrix: list[list[float]], nodes: dict[str, int], row: int, a: str, b: str) -> None:
    # Branch current k leaves node a and enters node b; its row reads v_a − v_b = value.
    for node, sign in ((a, 1.0), (b, -1.0)):
        i = nodes.get(node)
        if i is not None:
            matrix[i][row] += sign
            matrix[row][i] += sign


def _inject(rhs: list[float], nodes: dict[str, int], node: str, amps: float) -> None:
    i = nodes.get(node)
    if i is not None:
        rhs[i] += amps
