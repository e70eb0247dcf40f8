"""The schemas shared by environments and agents: decisions, observations and step results."""
