"""Apparatus platforms: the scene parts, physics models and instruments several experiments share."""
