"""The lab experiments with full specifications, by key."""
