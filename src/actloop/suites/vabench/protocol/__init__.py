"""vabench's decision protocol: the action space, decisions and their JSON parsing, observations, step
results and the prompt (the seed's tables 26-27)."""
