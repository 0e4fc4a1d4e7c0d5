"""King Kong's words shared by its rules and its physics: the labels the die, the spinner's two
circles and a Kong move give, a pawn's fates, the seat colours and the twist directions. The rules
(rules.py) and the physical rig (rig.py, knockover.py) both import these; neither imports the other.
"""
from __future__ import annotations

DIE_LABELS = ("1", "2", "3", "4", "5", "6")
OUTER_LABELS = ("L1", "L2", "R1", "R2", "LR1", "LR2", "UP")     # the spinner's outer circle: the twist
INNER_LABELS = ("U1", "U2", "U3", "U1-2", "U2-3")               # its inner circle: the climb
FATES = ("standing", "knocked", "pushed")                      # a pawn at risk after a Kong move
NO_RISK = "none"                                               # a Kong move with no pawn at risk
COLOURS = ("red", "blue", "green", "yellow", "orange", "purple")
LEFT, RIGHT = 1, -1            # twist directions: counter-clockwise (left) counts up
