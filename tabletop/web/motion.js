// A revealed throw's motion for the room page (tabletop/web/room.js): the server's `motion` message
// (docs/protocol.md, "motion"), checked and played on the 3D table.
//
//   const motion = createMotion(() => state.table, $("throw"));
//   motion.revealed(reveal);     // each `reveal`: its motion_sha256, kept by chance index
//   motion.received(message);    // each `motion`: inflated, hashed, compared, decoded, played
//
// The check is what a browser can do honestly: the inflated bytes hash (SHA-256, Web Crypto) to the
// motion_sha256 of the event's reveal, so the motion shown is the one the server committed to in
// the reveal and journaled. The browser does not re-simulate the throw: "motion checked", never
// "re-simulated" (only a Python client that re-simulates says that). A mismatch is shown in red and
// nothing is played. The throw plays at 30 frames a second through the table's setPoses(poses); the
// bodies of tracks the table does not have (King Kong's die and spinner, which only a throw brings)
// are first asked of the room (bodiesUrl(): its bodies.glb) and added to the table.
//
// The line's element (#motion, made after the throw line) carries data-checked, data-mismatched
// and data-played (frames that moved a body on the table), and data-ms (the last check's inflate,
// hash and decode, in milliseconds), for tests.

const FPS = 30;
const POSITION_UNIT = 1e-5;          // metres per stored unit (tabletop.sim.record)
const QUATERNION_SCALE = 32767;
const TIME_UNIT = 1e-6;              // seconds per stored unit
const ENCODING = "zlib-u32le";

function hex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function inflate(base64) {
  const packed = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// The hashed bytes as frames: [{time (s), poses: {track: [x, y, z, qx, qy, qz, qw]}}], hidden tracks
// left out. Throws when the runs do not add up.
export function decode(bytes, frameCount, tracks) {
  if (bytes.length % 4) throw new Error("not whole 32-bit values");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const v = new Array(bytes.length / 4);
  for (let i = 0; i < v.length; i += 1) {
    const u = view.getUint32(4 * i, true);
    v[i] = (u >>> 1) ^ -(u & 1);
  }
  const n = frameCount;
  let entries = 0;
  for (let i = n; i < 2 * n; i += 1) entries += v[i];
  const codes = v.slice(2 * n, 2 * n + entries);
  const poseCount = codes.filter((c) => c % 2 === 0).length;
  if (2 * n + entries + 7 * poseCount !== v.length) throw new Error("the runs do not add up");
  const base = 2 * n + entries;
  const step = new Map();              // track -> its last step (7 values), and its poses so far
  const at = new Map();
  const seen = new Map();
  const frames = [];
  let time = 0;
  let code = 0;
  let pose = 0;
  for (let f = 0; f < n; f += 1) {
    time += v[f];
    const poses = {};
    for (let e = 0; e < v[n + f]; e += 1, code += 1) {
      const c = codes[code];
      if (c % 2) continue;             // hidden: nothing to pose
      const t = c / 2;
      if (t >= tracks.length) throw new Error("a frame names a track the motion does not have");
      const r = [0, 1, 2, 3, 4, 5, 6].map((k) => v[base + k * poseCount + pose]);
      pose += 1;
      const i = seen.get(t) || 0;
      seen.set(t, i + 1);
      if (i === 0) {
        step.set(t, r);
        at.set(t, r.slice());
      } else {
        const e1 = i === 1 ? r : step.get(t).map((x, k) => x + r[k]);
        step.set(t, e1);
        at.set(t, at.get(t).map((x, k) => x + e1[k]));
      }
      const q = at.get(t);
      poses[tracks[t]] = [q[0] * POSITION_UNIT, q[1] * POSITION_UNIT, q[2] * POSITION_UNIT,
        q[3] / QUATERNION_SCALE, q[4] / QUATERNION_SCALE, q[5] / QUATERNION_SCALE, q[6] / QUATERNION_SCALE];
    }
    frames.push({ time: time * TIME_UNIT, poses });
  }
  return frames;
}

// The SHA-256 (hex) of a motion message's bytes, inflated: what its reveal's motion_sha256 must be.
export async function motionHash(message) {
  return hex(await crypto.subtle.digest("SHA-256", await inflate(message.data)));
}

export function createMotion(tableOf, after, bodiesUrl = () => null) {
  const line = document.createElement("p");
  line.id = "motion";
  line.dataset.checked = "0";
  line.dataset.mismatched = "0";
  line.dataset.played = "0";
  after.after(line);
  const hashes = new Map();          // chance -> the reveal's motion_sha256
  let playing = null;

  function count(key) {
    line.dataset[key] = String(Number(line.dataset[key]) + 1);
  }

  function say(text, bad) {
    line.textContent = text;
    line.style.color = bad ? "#a8201a" : "";
    line.style.fontWeight = bad ? "700" : "";
  }

  const asked = new Set();           // tracks whose bodies were asked for (found or not)

  // a throw's bodies the table lacks (King Kong's die): asked of the room once (bodiesUrl)
  async function bodiesFor(tracks) {
    const table = tableOf();
    const url = bodiesUrl();
    if (!url || !table || !table.ready || typeof table.addBodies !== "function") return;
    const missing = tracks.filter((track) => !table.hasTrack(track) && !asked.has(track));
    if (!missing.length) return;
    missing.forEach((track) => asked.add(track));
    try {
      await table.addBodies(url, missing);
    } catch {
      // played without them: the tracks the table lacks are skipped
    }
  }

  function revealed(reveal) {
    if (reveal.motion_sha256) hashes.set(reveal.chance, reveal.motion_sha256.toLowerCase());
  }

  function stop() {
    if (!playing) return;
    clearTimeout(playing.timer);
    const rest = {};
    for (const frame of playing.frames.slice(playing.next)) Object.assign(rest, frame.poses);
    hand(rest);                       // the bodies end where the throw left them
    playing = null;
  }

  function hand(poses) {
    const table = tableOf();
    if (!table || typeof table.setPoses !== "function" || !Object.keys(poses).length) return;
    if (table.setPoses(poses) > 0) count("played");
  }

  function play(frames) {
    stop();
    const start = performance.now();
    const run = { frames, next: 0, tick: 0, timer: null };
    playing = run;
    const tick = () => {
      const t = run.tick / FPS;
      const poses = {};
      while (run.next < frames.length && frames[run.next].time <= t + 1e-9) {
        Object.assign(poses, frames[run.next].poses);
        run.next += 1;
      }
      hand(poses);
      run.tick += 1;
      if (run.next >= frames.length) {
        playing = null;
        return;
      }
      run.timer = setTimeout(tick, Math.max(0, start + (run.tick * 1000) / FPS - performance.now()));
    };
    tick();
  }

  // `unchecked`: a recorded game with no commitments (a replay page of one): played as recorded,
  // and said so
  async function received(message, unchecked = false) {
    const name = `${message.event} ${message.chance + 1}`;
    if (unchecked) {
      try {
        if (message.encoding !== ENCODING) throw new Error(`unknown encoding ${message.encoding}`);
        play(decode(await inflate(message.data), message.frames, message.tracks));
        return say(`${name}: the motion as recorded (no commitment to check it against)`);
      } catch {
        return say(`${name}: the motion cannot be read: not played`, true);
      }
    }
    const expected = hashes.get(message.chance);
    if (expected === undefined) return say(`${name}: motion not checked (no reveal was seen for it)`, true);
    if (!globalThis.crypto || !crypto.subtle || typeof DecompressionStream !== "function") {
      return say(`${name}: motion not checked (this page has no Web Crypto: open it over https or localhost)`);
    }
    let frames;
    const began = performance.now();
    try {
      if (message.encoding !== ENCODING) throw new Error(`unknown encoding ${message.encoding}`);
      const bytes = await inflate(message.data);
      if (hex(await crypto.subtle.digest("SHA-256", bytes)) !== expected) throw new Error("hash");
      frames = decode(bytes, message.frames, message.tracks);
    } catch {
      count("mismatched");
      return say(`${name}: the motion does NOT match the hash in its reveal: not played`, true);
    }
    line.dataset.ms = (performance.now() - began).toFixed(2);    // inflate, hash and decode
    count("checked");
    say(`${name}: motion checked (its hash is the reveal's; this browser did not simulate it)`);
    await bodiesFor(message.tracks);
    play(frames);
    return undefined;
  }

  return { revealed, received, stop, element: line };
}
