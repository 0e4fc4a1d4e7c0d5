"""The Knossos Game (Hillbom ruleset): the board, its rules as a match, and AI seats."""
