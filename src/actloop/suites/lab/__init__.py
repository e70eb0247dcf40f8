"""The lab suite (EmbodiedLab): quantitative science experiments on simulated apparatus, operated by a
robot arm through a Python client, read through cameras, and scored on the result, the evidence recorded
in the episode and the state the bench is left in."""
