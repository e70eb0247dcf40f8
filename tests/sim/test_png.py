"""The PNG writer: lossless, deterministic, a valid file any decoder reads, refusing what it cannot write."""

import io

import numpy as np
import pytest
from PIL import Image

from actloop.sim.render import encode_png


def test_a_png_decodes_to_the_same_pixels_and_repeats_byte_for_byte() -> None:
    rng = np.random.default_rng(7)
    image = rng.integers(0, 256, size=(37, 53, 3), dtype=np.uint8)
    image[:10] = 200  # flat regions, as rendered frames have
    data = encode_png(image)
    decoded = Image.open(io.BytesIO(data))
    decoded.load()  # checks every chunk's CRC and the zlib stream
    assert decoded.mode == "RGB" and decoded.size == (53, 37)
    assert np.array_equal(np.asarray(decoded), image)
    assert encode_png(image.copy()) == data


def test_only_rgb_bytes_are_written() -> None:
    for bad in (np.zeros((4, 4), np.uint8), np.zeros((4, 4, 4), np.uint8), np.zeros((4, 4, 3), np.float32)):
        with pytest.raises(ValueError, match="H×W×3 uint8"):
            encode_png(bad)
