"""actloop: evaluate multimodal language models as embodied agents in MuJoCo."""

__version__ = "0.1.0"
