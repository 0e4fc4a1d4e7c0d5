"""The three games: rules, boards, physical tables and AI seats, built on `tabletop.sim`."""
