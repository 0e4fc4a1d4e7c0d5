"""The browser's room page (room.html, room.js, room.css), the 3D table's script and the vendored
three.js (vendor/): data only, served by the game server (tabletop.net.http)."""
