"""vabench's side of an episode: the decision loop, the scorekeeper, its record events, and the learning
phase with its stored summaries."""
