// The room page: a seat of a tabletop room (or the game watched) in a browser.
//
// It speaks the game server's protocol (docs/protocol.md) over a websocket to the server that
// served it: `join` (with the seat's token, kept in localStorage under this room's key alone, so a
// reload takes the seat back), then it shows what the room sends: the lobby and its seats, the
// views (the log appended from `log_from`, the status, the numbered choices of the seat to act),
// the chance events (each reveal checked against the commitment published before it, with Web
// Crypto: SHA-256(seed bytes || salt bytes)), chat and the result. The 3D table
// (./table3d.js, where it is installed) is mounted in #table3d; the page works without it.
// Every string a player wrote (names, chat) is shown with textContent, never as HTML.
//
// A recorded game exported as one file (`tabletop replay GAME.ttr --html`) is this page with the
// game inline (#replay-data): ./replay.js then feeds it the messages a spectator would have been
// sent, and no websocket is opened.

import { createMotion } from "./motion.js";

const V = 2;
const code = (() => {
  try {
    return decodeURIComponent(location.pathname.split("/")[2] || "");
  } catch {
    return "";                      // not a room's address
  }
})();
const storeKey = `tabletop.room.${code}`;      // this room's seat alone: {seat, token}
const nameKey = "tabletop.name";

const $ = (id) => document.getElementById(id);
const motion = createMotion(() => state.table, $("throw"),    // each revealed throw's motion, checked and played
  () => (state.tableFiles && state.tableFiles.bodies) || null);

const state = {
  socket: null,
  joinedOnce: false,
  spectate: false,
  name: "",
  token: null,
  seat: null,
  game: null,
  seats: [],
  started: false,
  paused: false,
  over: false,
  log: [],
  view: {},
  step: null,
  legal: null,
  sent: null,              // the step of the action sent, until the next view
  commitments: new Map(),
  checked: 0,
  mismatched: 0,
  retry: 0,
  table: null,             // the 3D table, once mounted
  tableFiles: null,        // {glb, json}: the addresses of table.glb and table.json
  replay: false,           // a replay page: its checks are replay.js's
};

// -- storage --------------------------------------------------------------------------------------
function kept() {
  try {
    const value = JSON.parse(localStorage.getItem(storeKey) || "null");
    return value && typeof value.token === "string" ? value : null;
  } catch {
    return null;
  }
}

function keep(seat, token) {
  try {
    localStorage.setItem(storeKey, JSON.stringify({ seat, token }));
  } catch {
    // not kept (private browsing): the seat is played all the same
  }
}

function forget() {
  try {
    localStorage.removeItem(storeKey);
  } catch {
    // nothing kept
  }
}

// -- the connection -------------------------------------------------------------------------------
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/${encodeURIComponent(code)}`);
  state.socket = socket;
  setConnection("connecting…");
  socket.addEventListener("open", () => {
    state.retry = 0;
    setConnection("connected");
    sendJoin();
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    receive(message);
  });
  socket.addEventListener("close", () => {
    if (state.socket !== socket) return;
    state.socket = null;
    if (state.over && state.joinedOnce) {
      setConnection("the game is over; the connection is closed");
      return;
    }
    const wait = Math.min(5000, 250 * 2 ** state.retry);
    state.retry += 1;
    setConnection(`connection lost: trying again in ${(wait / 1000).toFixed(1)} s`);
    setTimeout(connect, wait);
  });
}

function send(message) {
  if (!state.socket || state.socket.readyState !== WebSocket.OPEN) return false;
  state.socket.send(JSON.stringify({ v: V, ...message }));
  return true;
}

function sendJoin() {
  const message = { type: "join", room: code, motion: true };
  if (state.name) message.name = state.name;
  if (state.spectate) message.spectate = true;
  else if (state.token) message.token = state.token;
  send(message);
}

function setConnection(text) {
  $("connection").textContent = text;
}

// -- what the server says -------------------------------------------------------------------------
function receive(message) {
  switch (message.type) {
    case "joined": return onJoined(message);
    case "view": return onView(message);
    case "notice": return onNotice(message);
    case "chat": return onChat(message);
    case "commit": return onCommit(message);
    case "reveal": motion.revealed(message); return onReveal(message);
    case "motion": return motion.received(message);
    case "error": return onError(message);
    default: return undefined;
  }
}

function onJoined(message) {
  const first = !state.joinedOnce;
  state.joinedOnce = true;
  state.seat = message.seat;
  state.game = message.game;
  state.seats = message.seats;
  state.started = Boolean(message.started);
  if (message.token) {
    state.token = message.token;
    keep(message.seat, message.token);
  }
  document.body.dataset.seat = message.seat || "spectator";
  $("welcome").hidden = true;
  $("room").hidden = false;
  const title = message.title || message.game;
  $("title").textContent = message.seat ? `${title}: you play ${message.seat}` : `${title}: watching`;
  if (!state.replay) document.title = `${title} · tabletop`;
  renderPlayers();
  renderStatus();
  if (first) mountTable();
}

function onView(message) {
  const view = message.view;
  if (message.log_from === 0) {
    state.log = [...view.log];
    renderLog();
  } else if (message.log_from === state.log.length) {
    state.log.push(...view.log);
    appendLog(view.log);
  } else {                          // out of step: join again for the whole view
    sendJoin();
    return;
  }
  const { log, mirror, ...fields } = view;
  state.view = { ...state.view, ...fields };
  state.step = message.step;
  state.legal = Array.isArray(message.legal) && message.legal.length ? message.legal : null;
  state.over = Boolean(view.over);
  state.sent = null;
  document.body.dataset.step = String(message.step);
  renderAll();
}

function onNotice(message) {
  state.seats = message.seats;
  state.paused = Boolean(message.paused);
  state.started = Boolean(message.started);
  addLogLine(message.text, "notice");
  renderPlayers();
  renderStatus();
}

function onChat(message) {
  const item = document.createElement("li");
  const who = document.createElement("span");
  who.className = "who";
  if (message.spectator) {
    who.textContent = `[watching] ${message.name || "a spectator"}`;
  } else {
    who.append(swatch(message.seat), document.createTextNode(message.name ? `${message.seat} (${message.name})` : message.seat));
  }
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = message.text;
  item.append(who, document.createTextNode(": "), text);
  if (message.at) item.title = message.at;
  const list = $("chat");
  list.append(item);
  while (list.children.length > 200) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

function onCommit(message) {
  if (!state.commitments.has(message.chance)) state.commitments.set(message.chance, message.commitment);
  $("throw").textContent = `${message.event}: committed before the throw (${message.commitment.slice(0, 12)}…)`;
}

async function onReveal(message) {
  const committed = state.commitments.get(message.chance);
  const outcome = message.outcome === null ? "hidden until the game ends" : message.outcome;
  let verdict;
  if (committed === undefined) {
    verdict = "no commitment was seen for it";
  } else if (await matches(message.seed, message.salt, committed)) {
    if (!state.replay) state.checked += 1;
    verdict = "commitment checked";
  } else {
    state.mismatched += 1;
    verdict = "does NOT match its commitment";
  }
  const line = `${message.event} ${message.chance + 1}: ${outcome} (${verdict})`;
  $("throw").textContent = line + (state.mismatched ? `; ${state.mismatched} did NOT match` : "");
  $("throw").classList.toggle("bad", state.mismatched > 0);
  document.body.dataset.checked = String(state.checked);
}

function onError(message) {
  if (message.about === "join") {
    if (message.code === "bad-token") {        // not this room's seat any more: start again
      forget();
      state.token = null;
      return askName("Your seat in this room was not found: take a seat or watch.");
    }
    const why = {
      "unknown-room": "There is no room with this code on this server.",
      "room-full": "No seat is free in this room: you can watch it.",
      "room-closed": "This game is over: you can watch it.",
    }[message.code] || message.message;
    if (!state.joinedOnce) return askName(why);
  }
  if (message.about === "act") {
    state.sent = null;
    renderChoices();
  }
  $("problem").textContent = message.message;
  setTimeout(() => { if ($("problem").textContent === message.message) $("problem").textContent = ""; }, 6000);
  return undefined;
}

async function matches(seedHex, saltHex, commitment) {
  try {
    const bytes = hexBytes(seedHex + saltHex);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("") === commitment.toLowerCase();
  } catch {
    return false;
  }
}

function hexBytes(hex) {
  if (hex.length % 2 || /[^0-9a-fA-F]/.test(hex)) throw new Error("not hex");
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

// -- acting ---------------------------------------------------------------------------------------
function act(index) {
  if (!state.legal || state.sent !== null || index < 0 || index >= state.legal.length) return;
  if (send({ type: "act", token: state.token, step: state.step, action: state.legal[index] })) {
    state.sent = state.step;
    renderChoices();
  }
}

function choiceText(index) {
  const choice = Array.isArray(state.view.choices) ? state.view.choices[index] : null;
  if (choice && typeof choice.text === "string" && choice.text) return choice.text;
  return actionText(state.legal[index]);
}

function actionText(action) {
  const part = (value) => (Array.isArray(value) ? `[${value.map(part).join(", ")}]` : String(value));
  const [tag, ...fields] = action;
  return [String(tag).replaceAll("_", " "), ...fields.map(part)].join(" ");
}

// -- drawing --------------------------------------------------------------------------------------
function swatch(colour) {
  const mark = document.createElement("span");
  mark.className = "swatch";
  if (colour && CSS.supports("color", colour)) mark.style.backgroundColor = colour;
  return mark;
}

function renderAll() {
  renderStatus();
  renderChoices();
  renderPlayers();
  renderPosition();
  renderHand();
  renderResult();
  if (state.table) {
    try {
      if (state.view.pieces !== undefined) state.table.setPieces(state.view.pieces);
    } catch (error) {
      console.error("table3d setPieces", error);
    }
  }
}

function renderStatus() {
  const view = state.view;
  $("banner").textContent = view.banner || "";
  const turn = $("turn");
  const prompt = $("prompt");
  prompt.classList.remove("yours");
  if (!state.started) {
    turn.textContent = "Lobby";
    const waiting = waitingFor();
    prompt.textContent = waiting.length ? `The room waits for ${waiting.join(", ")}.` : "The game is about to start.";
    return;
  }
  turn.textContent = view.turn === undefined ? "" : `Turn ${view.turn}`;
  if (view.over) {
    prompt.textContent = view.winner ? `Game over: ${view.winner} wins.` : "Game over.";
  } else if (state.paused) {
    prompt.textContent = "The room is paused until a player comes back.";
  } else if (view.chance) {
    prompt.textContent = `Chance: ${view.chance} is being thrown…`;
  } else if (view.to_move && view.to_move === state.seat && state.legal) {
    prompt.textContent = matchMedia("(pointer: coarse)").matches ? "Your move: tap a choice below."
      : "Your move: click a choice below, or press its number.";
    prompt.classList.add("yours");
  } else if (view.to_move) {
    prompt.textContent = `${view.to_move} to move.`;
  } else {
    prompt.textContent = "";
  }
}

function renderChoices() {
  const list = $("choices");
  list.replaceChildren();
  const legal = state.view.over ? null : state.legal;
  const waiting = state.sent !== null;
  if (legal) {
    legal.forEach((_, index) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      button.dataset.index = String(index);
      button.disabled = waiting;
      const number = document.createElement("span");
      number.className = "number";
      number.textContent = index < 10 ? String((index + 1) % 10) : "";
      const text = document.createElement("span");
      text.textContent = choiceText(index);
      button.append(number, text);
      button.addEventListener("click", () => act(index));
      item.append(button);
      list.append(item);
    });
  }
  list.hidden = !legal;
  document.body.dataset.acting = legal && !waiting ? "yes" : "no";
  if (state.table) {
    try {
      const choices = legal ? (state.view.choices || legal.map((a, i) => ({ text: choiceText(i) }))) : [];
      state.table.showChoices(choices, legal && !waiting ? (index) => act(index) : null);
    } catch (error) {
      console.error("table3d showChoices", error);
    }
  }
}

function waitingFor() {
  return state.seats.filter((s) => s.kind === "remote" && !s.taken).map((s) => s.colour);
}

function renderPlayers() {
  const list = $("players");
  list.replaceChildren();
  const sizes = (state.view.position && state.view.position.hand_sizes) || {};
  for (const seat of state.seats) {
    const item = document.createElement("li");
    item.dataset.colour = seat.colour;
    if (seat.colour === state.view.to_move && !state.view.over && state.started) item.classList.add("to-move");
    if (seat.colour === state.seat) item.classList.add("you");
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = seat.name || (seat.kind === "remote" ? (seat.taken ? "a player" : "free seat") : "");
    const colour = document.createElement("span");
    colour.className = "colour";
    colour.textContent = seat.colour;
    const about = document.createElement("span");
    about.className = "about";
    about.textContent = seatAbout(seat, sizes[seat.colour]);
    item.append(swatch(seat.colour), colour, name, about);
    list.append(item);
  }
  $("players-title").textContent = state.started ? "Players" : "Lobby";
  const waiting = waitingFor();
  $("waiting").textContent = !state.started && waiting.length ? `waiting for ${waiting.join(", ")}` : "";
}

function seatAbout(seat, handSize) {
  const parts = [];
  if (seat.kind === "remote") {
    if (!seat.taken) parts.push("open to a player");
    else if (seat.played_by === "ai") parts.push("away: the AI plays it");
    else if (seat.connected === false) parts.push("away");
    else parts.push("player");
  } else {
    parts.push(seat.kind === "ai" ? "AI" : seat.kind);
  }
  if (handSize !== undefined) parts.push(`${handSize} cards`);
  return parts.join(" · ");
}

function renderPosition() {
  const position = state.view.position;
  if (!position) return;
  $("position").textContent = typeof position.text === "string" ? position.text
    : Object.entries(position).map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join("\n");
}

function renderHand() {
  const hand = state.view.hand;
  const hands = state.view.hands;                // a replay exported with --reveal: every seat's
  const box = $("hand");
  const shown = Array.isArray(hand) ? [["Your hand", hand]]
    : hands && typeof hands === "object" ? Object.entries(hands).map(([seat, cards]) => [`${seat}'s hand`, cards]) : [];
  box.hidden = !shown.length;
  if (!shown.length) return;
  box.replaceChildren();
  for (const [heading, cards] of shown) {
    const title = document.createElement("h2");
    title.textContent = heading;
    const list = document.createElement("ul");
    for (const card of Array.isArray(cards) ? cards : []) {
      const item = document.createElement("li");
      item.textContent = card && typeof card === "object" ? card.name : String(card);
      list.append(item);
    }
    box.append(title, list);
  }
}

function renderResult() {
  const box = $("result");
  box.hidden = !state.view.over;
  if (!state.view.over) return;
  box.replaceChildren();
  const lines = state.view.result || [];
  const title = document.createElement("h2");
  title.textContent = state.view.winner ? `${state.view.winner} wins` : "Game over";
  box.append(title);
  for (const line of lines) {
    const p = document.createElement("p");
    p.textContent = line;
    box.append(p);
  }
  if (!state.replay) {
    const checks = document.createElement("p");
    checks.textContent = `${state.checked} chance events: commitment checked in this browser`
      + (state.mismatched ? `; ${state.mismatched} did NOT match` : "");
    box.append(checks);
  }
}

function logItem(text, kind) {
  const item = document.createElement("li");
  item.textContent = text;
  if (kind) item.className = kind;
  return item;
}

function renderLog() {
  const list = $("log");
  list.replaceChildren(...state.log.map((line) => logItem(line)));
  list.scrollTop = list.scrollHeight;
}

function appendLog(lines) {
  const list = $("log");
  list.append(...lines.map((line) => logItem(line)));
  list.scrollTop = list.scrollHeight;
}

function addLogLine(text, kind) {
  const list = $("log");
  list.append(logItem(text, kind));
  list.scrollTop = list.scrollHeight;
}

// -- the 3D table, where installed ----------------------------------------------------------------
function mountTable() {
  const element = $("table3d");
  const files = state.tableFiles;
  if (!files) {
    element.hidden = true;             // a replay of a game with no window
    return;
  }
  import("./table3d.js")
    .then((module) => {
      if (typeof module.mount !== "function") return;
      state.table = module.mount(element, files.glb, files.json);
      document.body.classList.add("has-table");
      $("position-box").open = false;
      renderAll();
    })
    .catch(() => {
      element.hidden = true;           // no 3D table here: the page plays without it
    });
  window.addEventListener("pagehide", () => {
    if (state.table) state.table.dispose();
  });
}

// -- the forms and keys ---------------------------------------------------------------------------
function askName(problem = "") {
  $("welcome").hidden = false;
  $("room").hidden = true;
  $("join-error").textContent = problem;
  const input = $("name");
  if (!input.value) input.value = storedName();
  input.focus();
  setConnection(state.socket ? "connected" : "");
}

function storedName() {
  try {
    return localStorage.getItem(nameKey) || "";
  } catch {
    return "";
  }
}

function start(spectate) {
  const name = $("name").value.trim().slice(0, 40);
  if (!name && !spectate) {
    $("join-error").textContent = "Say your name first.";
    return;
  }
  try {
    localStorage.setItem(nameKey, name);
  } catch {
    // not kept
  }
  state.name = name;
  state.spectate = spectate;
  $("join-error").textContent = "";
  if (state.socket && state.socket.readyState === WebSocket.OPEN) sendJoin();
  else if (!state.socket) connect();
}

function setUp() {
  const embedded = document.getElementById("replay-data");
  if (embedded) {                   // a replay page: no room, no connection
    state.replay = true;
    import("./replay.js").then((module) => module.startReplay(JSON.parse(embedded.textContent),
      { receive, state, motion, matches, $ }));
    return;
  }
  const base = `/r/${encodeURIComponent(code)}`;
  state.tableFiles = { glb: `${base}/table.glb`, json: `${base}/table.json`, bodies: `${base}/bodies.glb` };
  if (!code || !/^[A-Za-z0-9_-]{1,64}$/.test(code)) {
    $("welcome").hidden = false;
    $("join-form").hidden = true;
    setConnection("This address names no room.");
    return;
  }
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    start(false);
  });
  $("watch").addEventListener("click", () => start(true));
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("say");
    const text = input.value.trim();
    if (text && send({ type: "say", text })) input.value = "";
  });
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (/^[0-9]$/.test(event.key) && state.legal) {
      act((Number(event.key) + 9) % 10);
      event.preventDefault();
    }
  });
  const seat = kept();
  if (seat) {                       // a reload: the seat kept for this room is taken back
    state.token = seat.token;
    state.name = storedName();
    connect();
  } else {
    askName();
  }
}

setUp();
