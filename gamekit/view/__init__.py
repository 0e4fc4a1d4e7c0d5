"""The desktop window for every game: `tabletop play GAME` without --headless."""
