// Entry point of the talus view page: loads the run's manifest, builds the scene, and plays the
// frames on the simulated clock. Files of the run are fetched from "run/<path>", relative to the
// page, which is where `talus view OUT` serves the run folder OUT.
//
// Page parameters (for comparing renderers): ?particles=impostors|spheres, ?detail=N (sphere
// subdivisions), ?aa=0|1 (antialiasing; off by default on software renderers), ?cull=0|1
// (skip particles buried in the bed; on by default on software renderers only), ?scale=X
// (canvas pixels per CSS pixel, 0.25 to 2; default the screen's, at most 2).

import { parseManifest, maxFrameBytes, formatCount, checkRelativePath, FormatError, runFileUrl } from './format.js';
import { FrameCache } from './frame_cache.js';
import { ViewScene } from './scene.js';
import { Timeline } from './timeline.js';
import { ErrorBox, showPlots, setTitle, showStatus } from './page.js';

const RUN = 'run/';
const MANIFEST = 'view/manifest.json';
const CACHE_BYTES = 128 * 1024 * 1024; // parsed frames kept in memory, at most
const PREFETCH = 12;                   // frames loaded ahead of the play head

const errors = new ErrorBox(document.getElementById('error'));

/** Counts events over the last second of real time, without allocating per event. */
class RateMeter {
  constructor() {
    this.stamps = new Float64Array(1024);
    this.total = 0;
  }

  mark(now) {
    this.stamps[this.total % this.stamps.length] = now;
    this.total++;
  }

  perSecond(now) {
    let count = 0;
    const n = Math.min(this.total, this.stamps.length);
    for (let i = 1; i <= n; ++i) {
      if (this.stamps[(this.total - i) % this.stamps.length] <= now - 1000) break;
      count++;
    }
    return count;
  }
}

class Player {
  constructor(manifest, scene, cache, timeline) {
    this.manifest = manifest;
    this.times = manifest.times_s;
    this.scene = scene;
    this.cache = cache;
    this.timeline = timeline;
    this.playing = false;
    this.speed = 1;
    this.simTime = this.times[0];
    this.shown = -1;          // index of the frame on screen
    this.seekTarget = -1;     // latest frame asked for by seek()
    this.waiters = [];        // { k, resolve } of seek() calls, resolved once frame k is drawn
    this.dirty = false;       // something changed while paused: draw once
    this.lastTick = null;
    this.draws = new RateMeter();
    this.changes = new RateMeter();
    this.waitingSince = null;
    this.tickInterval = 1 / 60; // seconds between animation frames, smoothed
    this.stride = 1;            // frames prefetched: every stride-th (see FrameCache.setPlayhead)
    const n = this.times.length;
    this.frameSpacing = n > 1 ? (this.times[n - 1] - this.times[0]) / (n - 1) : 1; // mean [s]
    scene.controls.addEventListener('change', () => { this.dirty = true; });
  }

  /** Last frame whose time is at or before t (binary search: times_s increase). */
  frameAt(t) {
    const ts = this.times;
    let lo = 0;
    let hi = ts.length - 1;
    if (t <= ts[0]) return 0;
    if (t >= ts[hi]) return hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (ts[mid] <= t) lo = mid; else hi = mid;
    }
    return lo;
  }

  display(frame) {
    this.scene.showFrame(frame);
    this.shown = frame.index;
    this.timeline.setFrame(frame.index);
    this.changes.mark(performance.now());
    this.dirty = true;
  }

  play() {
    if (this.playing) return;
    const last = this.times.length - 1;
    // Play at the end starts again from the beginning.
    if (this.shown === last) this.seek(0);
    this.playing = true;
    this.lastTick = null;
    this.timeline.setPlaying(true);
    this.scene.setPlaying(true);
  }

  pause() {
    this.playing = false;
    this.timeline.setPlaying(false);
    this.scene.setPlaying(false);
    this.dirty = true; // the still picture is drawn in more detail (ViewScene.setPlaying)
    showStatus('');
  }

  setSpeed(x) {
    this.speed = Number(x) > 0 ? Number(x) : 1;
    this.timeline.setSpeed(this.speed);
  }

  seek(k) {
    k = Math.max(0, Math.min(this.times.length - 1, Math.trunc(Number(k)) || 0));
    // Seeking supersedes earlier seeks still loading: they resolve with false.
    for (const w of this.waiters) if (w.k !== k) w.resolve(false);
    this.waiters = this.waiters.filter((w) => w.k === k);
    this.seekTarget = k;
    this.simTime = this.times[k];
    this.cache.setPlayhead(k);
    return new Promise((resolve, reject) => {
      this.waiters.push({ k, resolve });
      if (this.shown === k) {
        this.dirty = true;
        return;
      }
      this.cache.request(k).then((frame) => {
        if (this.seekTarget === k && this.shown !== k) this.display(frame);
      }, (err) => {
        this.waiters = this.waiters.filter((w) => w.k !== k);
        if (this.seekTarget === k) this.pause();
        reject(err);
      });
    });
  }

  /** One animation frame: advance the clock when playing, then draw if anything changed. */
  tick(now) {
    const dt = this.lastTick === null ? 0 : Math.min((now - this.lastTick) / 1000, 0.1);
    this.lastTick = now;
    if (this.scene.resize()) this.dirty = true;
    // A frame that a seek() waits for is drawn before playback moves on from it.
    const seekPending = this.waiters.length > 0 && this.waiters.some((w) => w.k === this.shown);
    if (this.playing && !seekPending) this.advance(dt, now);
    // While playing, every animation frame is drawn (that is the frame rate the stats report);
    // while paused, only when something changed, to leave the CPU alone.
    if (this.playing || this.dirty) {
      this.scene.render();
      this.dirty = false;
      this.draws.mark(now);
      if (this.waiters.length) {
        const done = this.waiters.filter((w) => w.k === this.shown);
        this.waiters = this.waiters.filter((w) => w.k !== this.shown);
        for (const w of done) w.resolve(true);
      }
    }
  }

  advance(dt, now) {
    const last = this.times.length - 1;
    // Frames the clock moves per drawn frame: the prefetch fetches only those it will show.
    // Changed only when off by a whole frame, so that the prefetch grid stays put.
    if (dt > 0) this.tickInterval += 0.1 * (dt - this.tickInterval);
    const stride = (this.speed * this.tickInterval) / this.frameSpacing;
    if (Math.abs(stride - this.stride) >= 1) this.stride = Math.max(1, Math.floor(stride));
    const t = this.simTime + dt * this.speed;
    const k = this.frameAt(t);
    this.cache.setPlayhead(k, this.stride);
    if (k !== this.shown) {
      // The newest loaded frame up to k (k itself when the prefetch kept up).
      const lowest = k > this.shown ? this.shown + 1 : k;
      let j = k;
      while (j >= lowest && !this.cache.has(j)) --j;
      if (j < lowest) {
        // Nothing new is loaded: hold the clock until it is, so the clock never runs ahead of
        // the picture. A frame that failed stops playback (its error is on the page).
        if (this.cache.errorOf(k)) {
          this.pause();
          return;
        }
        this.cache.request(k);
        if (this.waitingSince === null) this.waitingSince = now;
        else if (now - this.waitingSince > 300) showStatus(`loading frame ${k}…`);
        return;
      }
      this.display(this.cache.get(j));
      this.stopWaiting();
      // Showing an earlier frame than k means waiting for k: the clock goes to what is shown.
      if (j !== k) {
        this.simTime = this.times[j];
        return;
      }
    }
    this.stopWaiting();
    this.simTime = t;
    if (k === last && t >= this.times[last]) this.pause();
  }

  stopWaiting() {
    if (this.waitingSince !== null) {
      this.waitingSince = null;
      showStatus('');
    }
  }

  stats() {
    const now = performance.now();
    return {
      framesDrawn: this.draws.total,
      drawnFps: this.draws.perSecond(now),
      framesShown: this.changes.total,
      shownFps: this.changes.perSecond(now),
      particlesDrawn: this.scene.particles ? this.scene.particles.drawn : 0,
      cache: this.cache.usage(),
      bytesFetched: this.cache.bytesFetched,
    };
  }
}

// ---------------------------------------------------------------------------------------------

async function fetchRunFile(path, what, as) {
  let response;
  try {
    response = await fetch(runFileUrl(RUN, path));
  } catch (err) {
    throw new Error(`${what} (${path}): could not be fetched (${err.message})`);
  }
  if (!response.ok) {
    throw new Error(`${what} (${path}): HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  }
  return as === 'json' ? response.text() : response.arrayBuffer();
}

function parseManifestText(text, path) {
  let json;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`manifest (${path}): not valid JSON: ${err.message}`);
  }
  try {
    return { json, manifest: parseManifest(json) };
  } catch (err) {
    if (err instanceof FormatError) throw new Error(`manifest (${path}): ${err.message}`);
    throw err;
  }
}

/**
 * The scene to play: the run's manifest, or, for a run of several cases (its manifest lists
 * "cases", docs/viewer.md), the case named by ?case= (the first by default). Returns the
 * manifest and the cases' names with the one shown.
 */
async function loadManifest() {
  const top = parseManifestText(await fetchRunFile(MANIFEST, 'manifest', 'json'), MANIFEST);
  const cases = Array.isArray(top.json.cases) ? top.json.cases : [];
  const wanted = new URLSearchParams(location.search).get('case');
  if (cases.length === 0 || wanted === null) {
    return { manifest: top.manifest, cases, shown: cases.length ? cases[0].name : null };
  }
  const entry = cases.find((c) => c.name === wanted);
  if (!entry) {
    throw new Error(`this run has no case '${wanted}' (its cases: ${cases.map((c) => c.name).join(', ')})`);
  }
  checkRelativePath(entry.manifest, `cases[${wanted}].manifest`);
  const own = parseManifestText(await fetchRunFile(entry.manifest, `manifest of case '${wanted}'`, 'json'), entry.manifest);
  return { manifest: own.manifest, cases, shown: wanted };
}

/** A select in the header for a run of several cases; choosing one reloads the page on it. */
function setupCaseSelect(cases, shown) {
  if (cases.length === 0) return;
  const label = document.createElement('label');
  label.textContent = ' · case ';
  const select = document.createElement('select');
  select.id = 'case-select';
  for (const c of cases) select.append(new Option(c.name, c.name, false, c.name === shown));
  select.addEventListener('change', () => {
    const q = new URLSearchParams(location.search);
    q.set('case', select.value);
    location.search = q.toString();
  });
  label.append(select);
  document.getElementById('subtitle').append(label);
}

/** Per-particle radii: from radii_file when the run has one, else all radius_m. */
async function loadRadii(p) {
  if (p.radii_file === null) return new Float32Array(p.count).fill(p.radius_m);
  checkRelativePath(p.radii_file, 'particles.radii_file');
  const buffer = await fetchRunFile(p.radii_file, 'radii', 'binary');
  if (buffer.byteLength !== 4 * p.count) {
    throw new Error(`radii (${p.radii_file}): ${formatCount(buffer.byteLength)} bytes, expected ${formatCount(4 * p.count)} (4 per particle)`);
  }
  return new Float32Array(buffer);
}

/** Software renderers (SwiftShader, llvmpipe) pay dearly for antialiasing; GPUs do not. */
function softwareRenderer() {
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return false;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|softpipe|software/i.test(name);
  } catch {
    return false;
  }
}

function pageOptions() {
  const q = new URLSearchParams(location.search);
  const software = softwareRenderer();
  const flag = (name, otherwise) => (q.has(name) ? q.get(name) === '1' : otherwise);
  return {
    mode: q.get('particles') === 'spheres' ? 'spheres' : 'impostors',
    detail: Math.max(0, Math.min(4, Number(q.get('detail') ?? 0) || 0)),
    antialias: flag('aa', !software),
    cull: flag('cull', software),
    // Canvas pixels per CSS pixel; below 1 trades sharpness for speed on slow renderers.
    scale: Math.max(0.25, Math.min(2, Number(q.get('scale')) || Math.min(window.devicePixelRatio || 1, 2))),
  };
}

let player = null;
let manifestLoaded = null;

async function start() {
  showStatus('loading the run…');
  const { manifest, cases, shown } = await loadManifest();
  manifestLoaded = manifest;
  setTitle(manifest);
  setupCaseSelect(cases, shown);
  showPlots(document.getElementById('plots'), manifest.plots, RUN);
  const radii = manifest.particles ? await loadRadii(manifest.particles) : null;

  let scene;
  try {
    scene = new ViewScene(manifest, radii, document.getElementById('viewport'),
      document.getElementById('legends'), pageOptions());
  } catch (err) {
    throw new Error(`cannot draw: WebGL is not available in this browser (${err.message})`);
  }
  const capacity = Math.max(PREFETCH + 2, Math.min(256, Math.floor(CACHE_BYTES / maxFrameBytes(manifest))));
  const cache = new FrameCache({
    manifest, baseUrl: RUN, capacity, window: PREFETCH, onError: (err) => errors.add(err.message),
  });
  let p = null;
  const timeline = new Timeline(document.getElementById('timeline'), manifest.times_s, {
    playPause: () => (p.playing ? p.pause() : p.play()),
    seek: (k) => p.seek(k).catch(() => {}),
    speed: (x) => p.setSpeed(x),
  });
  p = new Player(manifest, scene, cache, timeline);
  player = p;
  setupColourToggle(scene, p);
  setupKeys(p);

  const loop = (now) => {
    p.tick(now);
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  await p.seek(0);
  showStatus('');
}

function setupColourToggle(scene, p) {
  const select = document.getElementById('colour-by');
  if (!scene.particles) {
    select.closest('label').hidden = true;
    return;
  }
  select.addEventListener('change', () => {
    scene.setColourBy(select.value);
    p.dirty = true;
  });
}

function setupKeys(p) {
  window.addEventListener('keydown', (e) => {
    // Controls with focus handle their own keys (space presses a focused button, arrows move
    // the slider): acting here too would do it twice.
    const tag = e.target && e.target.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'BUTTON' || tag === 'TEXTAREA') return;
    if (e.key === ' ') {
      e.preventDefault();
      if (p.playing) p.pause(); else p.play();
    } else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      p.pause();
      p.seek(p.shown + (e.key === 'ArrowRight' ? 1 : -1)).catch(() => {});
    }
  });
}

const ready = start();
ready.catch((err) => {
  showStatus('');
  errors.add(err.message);
});

function needPlayer() {
  if (!player) throw new Error('talusViewer: the run is not loaded yet (await talusViewer.ready)');
  return player;
}

// The page's interface for tests and for poking at a run from the browser console.
window.talusViewer = {
  /** Resolves once the first frame is drawn; rejects with the error shown on the page. */
  ready: ready.then(() => undefined),
  get manifest() { return manifestLoaded; },
  get frameCount() { return manifestLoaded ? manifestLoaded.frame_count : 0; },
  get currentFrame() { return player ? player.shown : -1; },
  get playing() { return player ? player.playing : false; },
  get time() { return player ? player.simTime : 0; },
  /** Resolves true once frame k is drawn (false if a later seek superseded it). */
  seek: (k) => needPlayer().seek(k),
  play: () => needPlayer().play(),
  pause: () => needPlayer().pause(),
  setSpeed: (x) => needPlayer().setSpeed(x),
  setColourBy: (by) => { needPlayer().scene.setColourBy(by); player.dirty = true; },
  stats: () => (player ? player.stats() : { framesDrawn: 0, drawnFps: 0, framesShown: 0, shownFps: 0 }),
  errors: () => errors.messages.slice(),
};
window.talusViewer.ready.catch(() => {}); // the page shows the error; no console noise
