"""Panda3D views: the only code that imports Panda3D (batch runs and rules tests never load it)."""
