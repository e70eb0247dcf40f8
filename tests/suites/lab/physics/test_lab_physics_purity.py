"""The physics models stay pure Python: no numpy, scipy or MuJoCo on the state path, and bit-identical
results for the same inputs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import actloop.suites.lab.physics as physics
from actloop.suites.lab.physics.acid_base import hcl, naoh, ph, weak_acid
from actloop.suites.lab.physics.burette import Burette
from actloop.suites.lab.physics.cantilever import Cantilever
from actloop.suites.lab.physics.circuits import Circuit, Junction
from actloop.suites.lab.physics.heat import ROOM, ThermalNetwork
from actloop.suites.lab.physics.linear import exp, expm, log
from actloop.suites.lab.physics.optics import Rail, ThinLens
from actloop.suites.lab.physics.rectifier import Rectifier, sin_cos, steady_state
from actloop.suites.lab.physics.solutions import CRYSTAL_VIOLET, HYDROXIDE, Portion, fade
from actloop.suites.lab.physics.spectra import Band, Dye, Spectrophotometer, absorbance

ALLOWED = {
    "__future__",
    "math",
    "statistics",
    "hashlib",
    "dataclasses",
    "collections",
    "functools",
    "fractions",
    "operator",
}
PACKAGE = Path(physics.__file__).parent


def test_modules_import_only_the_standard_library_they_need() -> None:
    for source in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in ALLOWED or name.startswith("actloop.suites.lab.physics"), (
                    f"{source.name} imports {name}"
                )


def test_importing_the_models_loads_no_numerical_library() -> None:
    script = (
        "import sys, actloop.suites.lab\n"
        "before = set(sys.modules)\n"
        "import actloop.suites.lab.physics.circuits, actloop.suites.lab.physics.heat\n"
        "import actloop.suites.lab.physics.optics, actloop.suites.lab.physics.spectra\n"
        "import actloop.suites.lab.physics.rectifier, actloop.suites.lab.physics.acid_base\n"
        "import actloop.suites.lab.physics.burette, actloop.suites.lab.physics.solutions\n"
        "import actloop.suites.lab.physics.cantilever\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "print(sorted(new & {'numpy', 'scipy', 'mujoco'}))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def _run_everything() -> list[float]:
    out: list[float] = []
    circuit = Circuit(["a", "b", "k"], 1 / 240)
    circuit.add_voltage_source("V", "a", "gnd", 5.0)
    circuit.add_resistor("R", "a", "b", 1e3)
    circuit.add_capacitor("C", "b", "gnd", 1e-4)
    circuit.add_resistor("RL", "b", "k", 220.0)
    circuit.add_led("D", "k", "gnd", Junction.led(525e-9))
    for _ in range(50):
        circuit.step()
        out += [circuit.capacitor_voltage("C"), circuit.current("D")]
    network = ThermalNetwork(1 / 240)
    network.add_body("block", 200.0, 330.0)
    network.set_link("block", ROOM, 0.3)
    network.add_thermistor("NTC", "block", r25=1e4, b_constant=3900.0, heat_capacity=0.01, conductance=1e-3)
    network.set_test_current("NTC", 1e-4)
    network.step(500)
    out += [network.temperature("block"), network.resistance("NTC")]
    rail = Rail(0.0, (ThinLens(0.3, 0.2, 0.03),), 0.8)
    out += [rail.blur_diameter(), rail.illuminance(500.0), rail.image().position]
    dye = Dye("d", (Band(590.0, 28.0), Band(545.0, 22.0, 0.4)), 80_000.0)
    spectro = Spectrophotometer("s", seed=3, decimals=9)
    spectro.set_wavelength(dye.lambda_max)
    spectro.blank(0.0)
    out += [dye.lambda_max, spectro.read(30.0, absorbance([(dye, 1e-5)], spectro.wavelength))]
    supply = steady_state(Rectifier(16.97, 1.0, 1.4), 1e-3, 250.0)
    out += [supply.mean, supply.ripple, supply.start]
    burette = Burette(10.0)
    drops = sum(burette.advance(1 / 240, 0.6) for _ in range(500))
    sample = hcl(0.1, 0.025).mix(weak_acid(0.05, 0.01, 4.76))
    out += [burette.phase, float(drops), ph(sample.mix(naoh(0.1, drops * burette.drop_ml / 1000)))]
    mixed = Portion.of(2.0, {CRYSTAL_VIOLET: 1.5e-5}).plus(Portion.of(1.0, {HYDROXIDE: 0.09}))
    out.append(fade(mixed, 123.4, 7e-4, 0.23).concentration(CRYSTAL_VIOLET))
    strip = Cantilever(5.3, 171.0)
    loads = [(0.981, 0.4), (0.4905, 0.2)]
    out += [strip.deflection(x, loads) for x in (0.05, 0.2, 0.33)] + [strip.slope(0.4, loads)]
    return out


def test_same_inputs_give_bit_identical_floats() -> None:
    first, second = _run_everything(), _run_everything()
    assert [x.hex() for x in first] == [x.hex() for x in second]


def test_golden_bits_of_the_arithmetic_kernels() -> None:
    # Bit-exact on every IEEE-754 machine (only + − × ÷, frexp and ldexp are used). Change these only
    # together with a deliberate change of the algorithms.
    assert exp(1.0).hex() == "0x1.5bf0a8b14576ap+1"  # e, one ulp above the nearest double
    assert log(10.0).hex() == "0x1.26bb1bbb55516p+1"
    assert [v.hex() for v in sin_cos(1.0)] == ["0x1.aed548f090ceep-1", "0x1.14a280fb5068bp-1"]
    assert [v.hex() for v in sin_cos(2.5)] == ["0x1.326af0dcfcaafp-1", "-0x1.9a2f7ef858b7ep-1"]
    assert [v.hex() for row in expm([[-1.0, 2.0], [0.5, -3.0]]) for v in row] == [
        "0x1.eb7bbc7d3796fp-2",
        "0x1.7b3f30243610ap-2",
        "0x1.7b3f30243610bp-4",
        "0x1.c0f231640618cp-4",
    ]
