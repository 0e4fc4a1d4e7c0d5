"""Physics core of tabletop: worlds, parts, readouts, devices and batch runs.

Nothing in this package knows about any game; games build on it.
"""
