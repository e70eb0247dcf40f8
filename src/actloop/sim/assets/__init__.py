"""Procedural, parameterized task objects as MJCF body fragments.

One module per object kind. Every object is a free body whose collision is built from convex pieces
(primitives or small convex meshes); evaluator-only reference points are sites in a hidden group.
"""
