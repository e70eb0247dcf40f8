"""``python -m actloop.cli``: the same as the ``actloop`` command."""

import sys

from actloop.cli import main

sys.exit(main())
