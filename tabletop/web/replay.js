// The controls of a replay page: a recorded game exported as one file (`tabletop replay GAME.ttr
// --html OUT.html`, tabletop/net/replay_page.py), opened from anywhere, with no server.
//
// The file holds the game as the messages a spectator of its room would have been sent, step by
// step (each recorded action: its chance event's commit, reveal and motion where it has them, then
// the view after it). Playing feeds a step's messages to the room page's own handlers (room.js:
// the log, the players, the table, the throw's motion played) and waits the step's beat; a jump
// (a turn back or on, the start, the end, the slider) shows the view at that step whole, with the
// log up to it. Every reveal is checked against its commitment and every motion against its hash
// once, when the page opens, with Web Crypto, and the page says so ("checked in this browser";
// it re-simulates nothing). At the end the page exposes the SHA-256 of the position it shows (the
// pieces' poses, the log, the winner) as body[data-position], the digest
// tabletop.net.browser.position_digest gives of the replay's final position.
//
// For tests: body[data-replay-step] (steps shown), [data-replay-steps] (of), [data-replay-done]
// ("yes" at the end), [data-replay-checked] ("yes" once the checks are done).

import { motionHash } from "./motion.js";

const POSE_SCALE = 1e5;              // tabletop.net.browser.POSE_DIGITS
const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16, 64];

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(text) {
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

function button(text, label, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.title = label;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

export function startReplay(data, room) {
  const { receive, state, motion, matches, $ } = room;
  const steps = data.steps;
  const last = steps.length - 1;
  const viewOf = (i) => steps[i].messages[steps[i].messages.length - 1];
  const body = document.body;
  let at = 0;
  let playing = false;
  let timer = null;
  let speed = 1;

  // -- the page as a replay: no join form, no chat; the controls over the table ------------------
  $("welcome").hidden = true;
  $("chat-panel").hidden = true;
  state.tableFiles = data.table;
  $("connection").textContent = data.complete ? "a recorded game, played back in this browser"
    : "a recorded game cut off before its end, played back in this browser";
  const bar = document.createElement("div");
  bar.id = "replay-bar";
  const toStart = button("|◀ Start", "the start (Home)", () => jump(0));
  const back = button("◀ Turn", "a turn back (left arrow)", () => jump(turnBack()));
  const play = button("Play", "play / pause (space)", () => toggle());
  play.id = "replay-play";
  const on = button("Turn ▶", "a turn on (right arrow)", () => jump(turnOn()));
  const toEnd = button("End ▶|", "the end (End)", () => jump(last));
  const slider = document.createElement("input");
  slider.type = "range";
  slider.min = "0";
  slider.max = String(last);
  slider.value = "0";
  slider.id = "replay-slider";
  slider.setAttribute("aria-label", "step");
  slider.addEventListener("input", () => jump(Number(slider.value)));
  const pace = document.createElement("select");
  pace.id = "replay-speed";
  pace.setAttribute("aria-label", "speed");
  for (const s of SPEEDS) {
    const option = document.createElement("option");
    option.value = String(s);
    option.textContent = `${s}x`;
    option.selected = s === 1;
    pace.append(option);
  }
  pace.addEventListener("change", () => { speed = Number(pace.value) || 1; });
  const where = document.createElement("span");
  where.id = "replay-where";
  bar.append(toStart, back, play, on, toEnd, slider, pace, where);
  $("status").before(bar);
  const checks = document.createElement("p");
  checks.id = "replay-checks";
  $("status").append(checks);
  if (data.hidden) {
    const hidden = document.createElement("p");
    hidden.id = "replay-hidden";
    hidden.textContent = data.hidden;
    $("status").append(hidden);
  }
  let review = null;
  if (Array.isArray(data.review)) {
    review = document.createElement("section");
    review.id = "review-panel";
    const title = document.createElement("h2");
    title.textContent = "Review";
    const rows = document.createElement("pre");
    rows.id = "review";
    review.append(title, rows);
    $("players-panel").after(review);
  }

  // -- showing a step ---------------------------------------------------------------------------
  function turnOf(i) {
    return steps[i].turn;
  }

  function turnEnd(turn) {              // the last step of `turn` (or the last before it)
    let i = 0;
    while (i < last && turnOf(i + 1) <= turn) i += 1;
    return i;
  }

  function turnOn() {
    if (at >= last) return last;
    return turnEnd(turnOf(at + 1));
  }

  function turnBack() {
    let i = at;
    while (i > 0 && turnOf(i) === turnOf(at)) i -= 1;
    return i === at ? 0 : i;
  }

  function whole(i) {                   // the view at step i with the whole log to it
    const message = viewOf(i);
    const log = [];
    for (let j = 0; j <= i; j += 1) log.push(...viewOf(j).view.log);
    return { ...message, log_from: 0, view: { ...message.view, log } };
  }

  function jump(i) {
    stop();
    motion.stop();
    at = Math.max(0, Math.min(last, i));
    receive(whole(at));
    shown();
  }

  function advance() {
    at += 1;
    for (const message of steps[at].messages) {
      if (message.type === "motion" && !data.committed) motion.received(message, true);
      else receive(message);
    }
    shown();
  }

  function shown() {
    slider.value = String(at);
    const turn = turnOf(at);
    where.textContent = `turn ${turn} · step ${at} of ${last}`;
    body.dataset.replayStep = String(at);
    body.dataset.replaySteps = String(last);
    body.dataset.replayDone = at === last ? "yes" : "no";
    play.textContent = playing ? "Pause" : "Play";
    if (review) {
      const rows = [...(data.review[Math.max(0, at - 1)] || [])];
      if (at === last && at > 0) rows.push("", ...(data.review[last] || []).slice(1));
      $("review").textContent = rows.join("\n");
    }
    if (at === last) expose();
    else delete body.dataset.position;
  }

  async function expose() {             // the position shown, hashed (module comment)
    const pieces = state.view.pieces || {};
    const rows = Object.keys(pieces).sort().map((track) =>
      `${track} ${pieces[track].map((v) => String(Math.round(v * POSE_SCALE) + 0)).join(" ")}`);
    const log = [...document.querySelectorAll("#log li:not(.notice)")].map((item) => item.textContent);
    const text = `${rows.join("\n")}\n--\n${log.join("\n")}\n--\n${state.view.winner || ""}`;
    const digest = await sha256(text);
    if (at === last) body.dataset.position = digest;
  }

  // -- playing ------------------------------------------------------------------------------------
  function stop() {
    playing = false;
    clearTimeout(timer);
    timer = null;
    play.textContent = "Play";
  }

  function tick() {
    if (!playing) return;
    if (at >= last) {
      stop();
      return;
    }
    advance();
    timer = setTimeout(tick, (1000 * steps[at].seconds) / speed);
  }

  function toggle() {
    if (playing) {
      stop();
      return;
    }
    if (at >= last) jump(0);
    playing = true;
    play.textContent = "Pause";
    tick();
  }

  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const keys = { " ": toggle, ArrowRight: () => jump(turnOn()), ArrowLeft: () => jump(turnBack()),
      Home: () => jump(0), End: () => jump(last) };
    if (keys[event.key]) {
      keys[event.key]();
      event.preventDefault();
    }
  });

  // -- the checks, once -------------------------------------------------------------------------
  async function checkAll() {
    const commitments = new Map();
    const hashes = new Map();
    let reveals = 0;
    let revealsOk = 0;
    let motions = 0;
    let motionsOk = 0;
    for (const step of steps) {
      for (const message of step.messages) {
        if (message.type === "commit") commitments.set(message.chance, message.commitment);
        if (message.type === "reveal") {
          reveals += 1;
          hashes.set(message.chance, message.motion_sha256);
          if (commitments.has(message.chance)
              && await matches(message.seed, message.salt, commitments.get(message.chance))) revealsOk += 1;
        }
        if (message.type === "motion") {
          motions += 1;
          try {
            if (await motionHash(message) === hashes.get(message.chance)) motionsOk += 1;
          } catch {
            // not counted: a motion that cannot be inflated does not match
          }
        }
      }
    }
    state.checked = revealsOk;
    const parts = [];
    if (reveals) parts.push(`${revealsOk} of ${reveals} reveals match their commitments`);
    if (motions) parts.push(`${motionsOk} of ${motions} throws' motions match their hashes`);
    const hiddenEvents = data.hidden_events ? `; ${data.hidden_events} hidden chance events not revealed in this file` : "";
    checks.textContent = data.committed
      ? `Checked in this browser: ${parts.join("; ") || "no chance event"} (Web Crypto; nothing re-simulated)${hiddenEvents}`
      : "This recording has no commitments (it was not played in a room): its throws are shown as recorded, "
        + "unchecked (tabletop replay --verify re-simulates them)";
    checks.classList.toggle("bad", Boolean(data.committed) && (revealsOk < reveals || motionsOk < motions));
    body.dataset.replayChecked = "yes";
    body.dataset.checked = String(revealsOk);
  }

  receive(data.joined);
  $("title").textContent = `${data.title}: the replay of ${data.file}`;
  document.title = `${data.title} · replay`;
  jump(0);
  checkAll().catch(() => {
    checks.textContent = "The checks could not run in this browser (no Web Crypto here)";
    body.dataset.replayChecked = "yes";
  });
}
