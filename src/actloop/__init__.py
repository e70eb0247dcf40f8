"""actloop: evaluate multimodal language models as embodied agents in MuJoCo."""

from actloop._gl import select_gl_backend

# Must run before anything imports mujoco: MuJoCo fixes its GL backend at import time.
select_gl_backend()

__version__ = "0.1.0"
