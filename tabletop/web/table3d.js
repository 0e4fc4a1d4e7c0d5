// The table in 3D for the room page (tabletop/web/room.js), drawn with three.js (vendored: ./vendor/three,
// brought in by scripts/vendor_three.py) from what the server declares for every game alike: the
// room's table.glb (a mesh node per track, the window's own part meshes and colours, under a root node
// that turns the table's Z-up frame into glTF's Y-up) and table.json (the tracks, the pieces, the
// camera, the size of a lit place; docs/protocol.md, "The table for a browser"). Nothing here names a
// game: a game added as a plugin shows with nothing more.
//
//   const table = mount(element, glbUrl, jsonUrl);
//   table.setPieces(view.pieces);           // {track: [x, y, z, qx, qy, qz, qw]}, in the table's frame
//   table.showChoices(view.choices, onPick) // lit places numbered index + 1; onPick(index) on a pick
//   table.dispose();
//
// A click or tap on a lit place picks its choice; on a piece with one lit place, picks that; on a
// piece with several, selects it (brighter, a halo at its foot) and lights only its places. Drag to
// turn the table, right-drag or two fingers to pan, wheel or pinch to zoom (OrbitControls).
// element.dataset.table3d says "loading", "ready", "none" (no table for this room) or "error";
// element.table3d is the mounted table (its choicePoint(i) and piecePoint(i): where choice i's lit
// place or piece i is on the screen, in client pixels, for tests that click as a player does).

import * as THREE from "./vendor/three/build/three.module.js";
import { GLTFLoader } from "./vendor/three/examples/jsm/loaders/GLTFLoader.js";
import { OrbitControls } from "./vendor/three/examples/jsm/controls/OrbitControls.js";

const BACKGROUND = 0x383d33;         // the window's cloth under the table
const MARKER_RGB = 0xffdb1a;         // a lit place: bright yellow ...
const MARKER_RIM = 0x1f0f00;         // ... in a dark rim (gamekit/view/adapter.py)
const HALO_RGB = 0x33ffff;           // round the selected piece
const TAP_PX = 8;                    // a pointer that moves less than this between down and up taps
const LABEL_SCALE = 1.5;             // a lit place's number: this many times the place's radius across

function sanitized(name) {
  return THREE.PropertyBinding.sanitizeNodeName(name);   // what GLTFLoader names a node
}

function setPose(object, pose) {
  object.position.set(pose[0], pose[1], pose[2]);
  object.quaternion.set(pose[3], pose[4], pose[5], pose[6]);
}

function numberTexture(text) {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 64;
  const g = canvas.getContext("2d");
  g.font = "bold 40px sans-serif";
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.lineWidth = 8;
  g.strokeStyle = "rgba(0, 0, 0, 0.85)";
  g.strokeText(text, 32, 34);
  g.fillStyle = "#ffffff";
  g.fillText(text, 32, 34);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  return texture;
}

// Words on the table (table.json's `labels`: tabletop/gamekit/view/places.py `Label`): a canvas
// texture of the text, on a plaque of its colour or with a dark shadow; `size` the letters' height
// in metres (the window's text scale), the baseline at `at`; flat on the table turned `heading`
// degrees, or a sprite that faces the viewer; a child of the track `parent` where it has one.
const LABEL_PX = 64;
function labelObject(label) {
  const canvas = document.createElement("canvas");
  const g = canvas.getContext("2d");
  const font = `bold ${LABEL_PX}px sans-serif`;
  g.font = font;
  const pad = LABEL_PX * 0.3;
  canvas.width = Math.ceil(g.measureText(label.text).width + 2 * pad);
  canvas.height = Math.ceil(LABEL_PX * 1.3);
  const css = (c) => `rgba(${Math.round(c[0] * 255)}, ${Math.round(c[1] * 255)}, ${Math.round(c[2] * 255)}, ${c[3] ?? 1})`;
  if (label.plate) {
    g.fillStyle = css(label.plate);
    g.beginPath();
    g.roundRect(0, 0, canvas.width, canvas.height, LABEL_PX * 0.2);
    g.fill();
  }
  g.font = font;
  g.textAlign = "center";
  g.textBaseline = "alphabetic";
  const baseline = LABEL_PX * 1.0;
  if (!label.plate) {
    g.fillStyle = "rgba(0, 0, 0, 0.8)";
    g.fillText(label.text, canvas.width / 2 + LABEL_PX * 0.04, baseline + LABEL_PX * 0.04);
  }
  g.fillStyle = css(label.color);
  g.fillText(label.text, canvas.width / 2, baseline);
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  texture.anisotropy = 4;
  const height = label.size * canvas.height / LABEL_PX;
  const width = height * canvas.width / canvas.height;
  const below = (canvas.height - baseline) / canvas.height;        // of the height, under the baseline
  let object;
  if (label.flat) {
    const geometry = new THREE.PlaneGeometry(width, height);
    geometry.translate(0, height * (0.5 - below), 0);
    const material = new THREE.MeshBasicMaterial({ map: texture, transparent: true, depthWrite: false,
      polygonOffset: true, polygonOffsetFactor: -2, polygonOffsetUnits: -2 });
    object = new THREE.Mesh(geometry, material);
    object.rotation.z = THREE.MathUtils.degToRad(label.heading || 0);
  } else {
    object = new THREE.Sprite(new THREE.SpriteMaterial({ map: texture, depthWrite: false }));
    object.scale.set(width, height, 1);
    object.center.set(0.5, below);
  }
  object.position.set(label.at[0], label.at[1], label.at[2]);
  object.renderOrder = 1;
  object.name = `label-${label.text}`;
  return object;
}

export function mount(element, glbUrl, jsonUrl) {
  element.dataset.table3d = "loading";
  const renderer = new THREE.WebGLRenderer({ antialias: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.domElement.style.display = "block";
  renderer.domElement.style.width = "100%";
  renderer.domElement.style.height = "100%";
  renderer.domElement.style.touchAction = "none";
  element.append(renderer.domElement);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color(BACKGROUND);
  scene.add(new THREE.HemisphereLight(0xd8dce6, 0x3a3630, 1.6));
  const sun = new THREE.DirectionalLight(0xfff3e0, 2.2);
  sun.position.set(-0.6, 1.6, 0.9);        // high, from the front left (Y up here)
  scene.add(sun);
  const fill = new THREE.DirectionalLight(0xc8d0ff, 0.5);
  fill.position.set(0.8, 0.6, -0.7);
  scene.add(fill);

  const camera = new THREE.PerspectiveCamera(50, 1, 0.005, 50);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.screenSpacePanning = false;     // pan along the table
  controls.maxPolarAngle = Math.PI * 0.495;
  controls.zoomToCursor = true;

  const state = {
    disposed: false,
    root: null,                 // the glTF's root: its local frame is the table's (Z up)
    info: null,                 // table.json
    tracks: new Map(),          // track -> its node
    pieceMeshes: [],            // piece index -> its meshes (for picking and highlight)
    pieces: null,               // the latest poses given, applied once loaded
    choices: [],
    onPick: null,
    selected: null,             // the selected piece's index, or null
    markers: null,              // the group of lit places now drawn
    halo: null,
    hits: [],                   // [{mesh, index}] of the lit places drawn
    frame: 0,
    labels: 0,                  // the words drawn on the table
  };
  let pending = false;
  function render() {
    if (pending || state.disposed) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (state.disposed) return;
      renderer.render(scene, camera);
      state.frame += 1;
    });
  }
  controls.addEventListener("change", render);

  function resize() {
    const width = Math.max(1, element.clientWidth);
    const height = Math.max(1, element.clientHeight);
    renderer.setSize(width, height, false);
    camera.aspect = width / height;
    camera.updateProjectionMatrix();
    render();
  }
  const observer = new ResizeObserver(resize);
  observer.observe(element);
  resize();

  // -- loading ------------------------------------------------------------------------------------
  function toWorld(point) {
    return new THREE.Vector3(point[0], point[1], point[2]).applyMatrix4(state.root.matrixWorld);
  }

  // the camera at table.json's: on its line of sight, as far as fills the view with the framed
  // sphere (`radius`) at this aspect (a phone's portrait view is narrower than it is high)
  function frameCamera() {
    const view = state.info.camera;
    camera.fov = view.fov || 50;
    const target = toWorld(view.target);
    const position = toWorld(view.position);
    if (view.radius) {
      const half = THREE.MathUtils.degToRad(camera.fov) / 2;
      const across = Math.atan(Math.tan(half) * camera.aspect);
      const distance = view.radius / Math.sin(Math.min(half, across));
      position.sub(target).setLength(distance).add(target);
    }
    camera.position.copy(position);
    camera.up.set(0, 1, 0);
    const size = new THREE.Vector3().fromArray(state.info.bounds[1]).sub(new THREE.Vector3().fromArray(state.info.bounds[0]));
    camera.near = Math.max(0.002, size.length() / 2000);
    camera.far = size.length() * 20 + camera.position.distanceTo(target) * 4;
    camera.updateProjectionMatrix();
    controls.target.copy(target);
    controls.minDistance = size.length() / 60;
    controls.maxDistance = size.length() * 4;
    controls.update();
    controls.saveState();
  }

  function loaded(gltf, info) {
    state.info = info;
    const root = gltf.scene.getObjectByName(sanitized(info.root || "z-up")) || gltf.scene;
    state.root = root;
    scene.add(gltf.scene);
    gltf.scene.updateMatrixWorld(true);
    for (const [track, about] of Object.entries(info.tracks || {})) {
      const node = root.getObjectByName(sanitized(track));
      if (!node) continue;
      state.tracks.set(track, node);
      if (about && about.until_thrown) node.visible = false;    // a throw's body: shown once a throw poses it
    }
    state.pieceMeshes = (info.pieces || []).map((piece, index) => {
      const meshes = [];
      for (const track of piece.tracks || []) {
        const node = state.tracks.get(track);
        if (!node) continue;
        node.traverse((object) => {
          if (!object.isMesh) return;
          object.material = object.material.clone();    // brightened alone when selected
          object.renderOrder = 2;                       // drawn over the lit places
          object.userData.piece = index;
          meshes.push(object);
        });
      }
      return meshes;
    });
    for (const label of info.labels || []) {
      const parent = (label.parent && state.tracks.get(label.parent)) || root;
      parent.add(labelObject(label));
      state.labels += 1;
    }
    frameCamera();
    if (state.pieces) applyPieces();
    drawChoices();
    element.dataset.table3d = "ready";
    render();
  }

  const loader = new GLTFLoader();
  Promise.all([
    fetch(jsonUrl, { credentials: "same-origin" }).then((response) => {
      if (!response.ok) throw Object.assign(new Error(`table.json: ${response.status}`), { status: response.status });
      return response.json();
    }),
    loader.loadAsync(glbUrl),
  ]).then(([info, gltf]) => {
    if (!state.disposed) loaded(gltf, info);
  }).catch((error) => {
    if (state.disposed) return;
    element.dataset.table3d = error && error.status === 404 ? "none" : "error";
    if (element.dataset.table3d === "error") console.error("table3d", error);
  });

  // -- pieces -------------------------------------------------------------------------------------
  function applyPieces() {
    for (const [track, pose] of Object.entries(state.pieces || {})) {
      const node = state.tracks.get(track);
      if (node && Array.isArray(pose) && pose.length === 7) setPose(node, pose);
    }
    state.root.updateMatrixWorld(true);
  }

  function setPieces(pieces) {
    state.pieces = pieces || {};
    if (!state.root) return;
    applyPieces();
    drawChoices();              // a lit place under a piece shows round it
    render();
  }

  // -- lit places ---------------------------------------------------------------------------------
  function clearMarkers() {
    if (state.markers) {
      state.markers.traverse((object) => {
        if (object.geometry) object.geometry.dispose();
        if (object.material) {
          if (object.material.map) object.material.map.dispose();
          object.material.dispose();
        }
      });
      state.markers.removeFromParent();
    }
    if (state.halo) {
      state.halo.geometry.dispose();
      state.halo.material.dispose();
      state.halo.removeFromParent();
    }
    state.markers = state.halo = null;
    state.hits = [];
  }

  function flat(geometry, color, order) {
    const material = new THREE.MeshBasicMaterial({ color, depthTest: false, depthWrite: false, side: THREE.DoubleSide });
    const mesh = new THREE.Mesh(geometry, material);
    mesh.renderOrder = order;
    return mesh;
  }

  function placeKey(at) {
    return at.map((v) => v.toFixed(4)).join(",");
  }

  // the lit places shown now: only the selected piece's; with none selected, every choice's place
  // but those that more than one piece can go to (lit once one of them is selected)
  function shownPlaces() {
    const seen = new Map();
    state.choices.forEach((choice, index) => {
      if (!choice || !Array.isArray(choice.at)) return;
      if (state.selected !== null && choice.piece !== state.selected) return;
      const key = placeKey(choice.at);
      const held = seen.get(key);
      if (!held) seen.set(key, { at: choice.at, index, piece: choice.piece });   // one place, its first choice
      else if (held.piece !== choice.piece) held.shared = true;
    });
    return [...seen.values()].filter((place) => !place.shared);
  }

  function occupied(at, radius) {
    for (const [, pose] of Object.entries(state.pieces || {})) {
      if (Math.hypot(pose[0] - at[0], pose[1] - at[1], pose[2] - at[2]) < radius) return true;
    }
    return false;
  }

  function drawChoices() {
    clearMarkers();
    if (!state.root || !state.onPick) {
      render();
      return;
    }
    const marker = state.info.marker || { radius: 0.012, drop: 0 };
    const r = marker.radius;
    const group = new THREE.Group();
    group.name = "lit places";
    for (const { at, index } of shownPlaces()) {
      const place = new THREE.Group();
      place.position.set(at[0], at[1], at[2] - marker.drop + 0.0008);
      if (occupied(at, r)) {      // a ring round the piece standing there
        place.add(flat(new THREE.RingGeometry(0.85 * r, 1.45 * r, 32), MARKER_RGB, 1));
        place.add(flat(new THREE.RingGeometry(1.45 * r, 1.65 * r, 32), MARKER_RIM, 1));
      } else {
        place.add(flat(new THREE.CircleGeometry(0.78 * r, 32), MARKER_RGB, 1));
        place.add(flat(new THREE.RingGeometry(0.78 * r, r, 32), MARKER_RIM, 1));
      }
      const hit = new THREE.Mesh(new THREE.CircleGeometry(1.7 * r, 16),
        new THREE.MeshBasicMaterial({ transparent: true, opacity: 0, depthWrite: false, colorWrite: false }));
      hit.position.z = 0.0002;
      place.add(hit);
      state.hits.push({ mesh: hit, index });
      const label = new THREE.Sprite(new THREE.SpriteMaterial({
        map: numberTexture(String(index + 1)), depthTest: false, depthWrite: false,
      }));
      label.scale.set(LABEL_SCALE * r, LABEL_SCALE * r, 1);     // as big as the place: never over another
      label.position.z = 0.5 * r;
      label.renderOrder = 3;
      place.add(label);
      group.add(place);
    }
    state.root.add(group);
    state.markers = group;
    if (state.selected !== null) {
      const node = state.tracks.get((state.info.pieces[state.selected].tracks || [])[0]);
      if (node) {
        const halo = flat(new THREE.RingGeometry(1.15 * r, 1.6 * r, 32), HALO_RGB, 1);
        halo.position.set(node.position.x, node.position.y, node.position.z - marker.drop + 0.0012);
        state.root.add(halo);
        state.halo = halo;
      }
    }
    state.pieceMeshes.forEach((meshes, index) => {
      for (const mesh of meshes) {
        if (mesh.material.emissive) mesh.material.emissive.setScalar(index === state.selected ? 0.35 : 0);
      }
    });
    state.root.updateMatrixWorld(true);
    render();
  }

  function showChoices(choices, onPick) {
    state.choices = Array.isArray(choices) ? choices : [];
    state.onPick = typeof onPick === "function" ? onPick : null;
    state.selected = null;
    drawChoices();
  }

  // -- picking ------------------------------------------------------------------------------------
  const raycaster = new THREE.Raycaster();
  function pickAt(clientX, clientY) {
    if (!state.root || !state.onPick) return;
    const rect = renderer.domElement.getBoundingClientRect();
    const pointer = new THREE.Vector2(((clientX - rect.left) / rect.width) * 2 - 1,
      -((clientY - rect.top) / rect.height) * 2 + 1);
    raycaster.setFromCamera(pointer, camera);
    const places = raycaster.intersectObjects(state.hits.map((h) => h.mesh), false);
    if (places.length) {
      const hit = state.hits.find((h) => h.mesh === places[0].object);
      state.onPick(hit.index);
      return;
    }
    const pieces = raycaster.intersectObjects(state.pieceMeshes.flat(), false);
    if (!pieces.length) {
      if (state.selected !== null) {
        state.selected = null;
        drawChoices();
      }
      return;
    }
    const piece = pieces[0].object.userData.piece;
    const own = [];
    state.choices.forEach((choice, index) => {
      if (choice && choice.piece === piece && Array.isArray(choice.at)) own.push(index);
    });
    if (new Set(own.map((i) => placeKey(state.choices[i].at))).size === 1) {
      state.onPick(own[0]);
    } else if (own.length) {
      state.selected = piece;
      drawChoices();
    }
  }

  let down = null;
  function onDown(event) {
    down = { x: event.clientX, y: event.clientY, id: event.pointerId };
  }
  function onUp(event) {
    if (!down || down.id !== event.pointerId) return;
    const tap = Math.hypot(event.clientX - down.x, event.clientY - down.y) < TAP_PX;
    down = null;
    if (tap) pickAt(event.clientX, event.clientY);
  }
  renderer.domElement.addEventListener("pointerdown", onDown);
  renderer.domElement.addEventListener("pointerup", onUp);

  // where a choice's lit place (or a piece) is on the screen, in client pixels (null: not shown):
  // for tests that click the canvas as a player would
  function screenPoint(local) {
    const rect = renderer.domElement.getBoundingClientRect();
    const p = toWorld(local).project(camera);
    if (p.z > 1) return null;
    return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
  }
  function choicePoint(index) {
    const choice = state.choices[index];
    if (!state.root || !choice || !Array.isArray(choice.at)) return null;
    const drop = (state.info.marker || { drop: 0 }).drop;
    return screenPoint([choice.at[0], choice.at[1], choice.at[2] - drop]);
  }
  function piecePoint(index) {
    const piece = state.info && state.info.pieces[index];
    const node = piece && state.tracks.get((piece.tracks || [])[0]);
    return node ? screenPoint([node.position.x, node.position.y, node.position.z]) : null;
  }

  function dispose() {
    state.disposed = true;
    observer.disconnect();
    renderer.domElement.removeEventListener("pointerdown", onDown);
    renderer.domElement.removeEventListener("pointerup", onUp);
    controls.dispose();
    clearMarkers();
    scene.traverse((object) => {
      if (object.geometry) object.geometry.dispose();
      if (object.material) {
        for (const material of [].concat(object.material)) {
          for (const value of Object.values(material)) if (value && value.isTexture) value.dispose();
          material.dispose();
        }
      }
    });
    renderer.dispose();
    renderer.domElement.remove();
  }

  const api = {
    setPieces,
    showChoices,
    dispose: () => {
      dispose();
      if (element.table3d === api) delete element.table3d;
    },
    resetCamera: () => { controls.reset(); render(); },
    choicePoint,
    piecePoint,
    get frames() { return state.frame; },
    get labels() { return state.labels; },
    get choices() { return state.choices; },     // the choices shown (each its piece and lit place)
    get ready() { return Boolean(state.root); },
    hasTrack: (track) => state.tracks.has(track),
    // the bodies a throw moves that the table lacks (a die: the room's bodies.glb, tabletop/net/
    // browser.py), added in the table's frame, hidden until a throw poses them; how many were added
    addBodies(url, tracks) {
      if (!state.root) return Promise.resolve(0);
      return loader.loadAsync(url).then((gltf) => {
        if (state.disposed || !state.root) return 0;
        const root = gltf.scene.getObjectByName(sanitized(state.info.root || "z-up")) || gltf.scene;
        let added = 0;
        for (const track of tracks) {
          const node = state.tracks.has(track) ? null : root.getObjectByName(sanitized(track));
          if (!node) continue;
          node.removeFromParent();
          node.visible = false;
          state.root.add(node);
          state.tracks.set(track, node);
          added += 1;
        }
        state.root.updateMatrixWorld(true);
        element.dataset.bodies = String(Number(element.dataset.bodies || 0) + added);
        return added;
      });
    },
    // {track: [x, y, z, qx, qy, qz, qw]}: a throw's bodies as tabletop/web/motion.js plays them, in
    // the table's frame; a track the table does not have (a die not in table.glb) is skipped
    setPoses(poses) {
      if (!state.root) return 0;
      let shown = 0;
      for (const [track, pose] of Object.entries(poses || {})) {
        const node = state.tracks.get(track);
        if (node && Array.isArray(pose) && pose.length === 7) {
          setPose(node, pose);
          node.visible = true;
          shown += 1;
        }
      }
      state.root.updateMatrixWorld(true);
      render();
      return shown;
    },
  };
  element.table3d = api;        // tests reach it as the element's: element.table3d.choicePoint(i)
  return api;
}
