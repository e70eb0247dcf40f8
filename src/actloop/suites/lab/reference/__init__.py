"""Reference solutions: scripted experimenters that act only through the public client and read every
value from the instruments, as the seed requires of the solutions that prove each experiment solvable.

Nothing here may import the bench, its physics or its evaluator: only the client, the published
calibration and what any experimenter may know (the card, the bench's visible layout).
"""
