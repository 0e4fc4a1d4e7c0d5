"""The generic game machinery (tabletop.gamekit): what every game here is built on and every front
end drives, naming no game: the definition a game fills (definition), its rules' base state,
chance sources, seats, the one match loop, codecs, replays (record, summary, verify), analysis,
agent environments (PettingZoo, OpenSpiel), the rules bench and the window's controller, adapter
base and playback (view/). The games (tabletop.games) import it, never the reverse; generic code is
handed a game's definition (tabletop.gamekit.registry turns a name into one)."""
