"""Rendering untrusted text (model replies, record contents) for people: one rule for invalid code points.

Text read back from a record may hold a lone surrogate (a model reply can carry ``"\\ud800"``; records keep
it exactly, as a JSON escape). UTF-8 cannot encode one, so everything actloop renders from records (HTML
pages, CSV and Markdown files, JSON answers to a page, the console, the Parquet table) passes through
:func:`readable`: a surrogate pair becomes its character and a lone surrogate becomes U+FFFD, the
replacement character a browser would show for it anyway.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

_SURROGATE = re.compile("[\ud800-\udfff]")


def readable(text: str) -> str:
    """``text`` as valid Unicode: surrogate pairs joined, lone surrogates replaced with U+FFFD."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def write_text(path: Path, text: str) -> Path:
    """Write :func:`readable` ``text`` as UTF-8 to ``path`` at once (a reader sees the old or the new file,
    even after a crash: the new one is on disk before it replaces the old) and return ``path``. The file is
    replaced, never written through: a link at ``path`` is not followed."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(readable(text))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path
