"""Physics models the rigid-body engine does not model: circuits, heat, optics and spectra.

Pure Python floats on the state path (no numpy, scipy or MuJoCo), so the same inputs give bit-identical
results on every machine. Units are SI unless a docstring says otherwise.
"""
