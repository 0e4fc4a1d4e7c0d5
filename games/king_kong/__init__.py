"""King Kong: the board, Kong's figure and the deck as data, the rules, AI seats, headless play."""
