// Frames are fetched on demand, never all up front: a run can hold gigabytes of frames. The
// cache keeps a small window ahead of the play head loading and a bounded number of parsed
// frames in memory, dropping the least recently used ones outside the window.

import { parseFrame, formatCount, FormatError, runFileUrl } from './format.js';

/** An error about one frame file; its message names the frame and its path. */
export class FrameError extends Error {
  constructor(index, path, what) {
    super(`frame ${index} (${path}): ${what}`);
    this.name = 'FrameError';
    this.index = index;
  }
}

export class FrameCache {
  /**
   * @param manifest   a checked manifest (format.parseManifest)
   * @param baseUrl    URL of the run folder, ending in "/" ("run/" on the talus view server)
   * @param capacity   most parsed frames kept
   * @param window     frames prefetched ahead of the play head
   * @param maxInFlight most prefetch requests at a time (a seek is never queued behind them)
   * @param onError    called once per failing frame with its FrameError
   */
  constructor({ manifest, baseUrl, capacity, window, maxInFlight = 4, onError = () => {} }) {
    this.manifest = manifest;
    this.baseUrl = baseUrl;
    this.capacity = Math.max(capacity, window + 2);
    this.window = window;
    this.maxInFlight = maxInFlight;
    this.onError = onError;
    this.entries = new Map(); // index -> { frame, error, promise, lastUsed }
    this.inFlight = 0;
    this.playhead = 0;
    this.stride = 1;
    this.useClock = 0;
    this.bytesFetched = 0;
  }

  /** The parsed frame k if it is loaded, else undefined. Marks it as recently used. */
  get(k) {
    const e = this.entries.get(k);
    if (!e || !e.frame) return undefined;
    e.lastUsed = ++this.useClock;
    return e.frame;
  }

  /** The FrameError of frame k if loading it failed, else undefined. */
  errorOf(k) {
    const e = this.entries.get(k);
    return e ? e.error : undefined;
  }

  /** A Promise of frame k, loading it now (ahead of any queued prefetch) if needed. */
  request(k) {
    const e = this.entries.get(k);
    if (e) {
      e.lastUsed = ++this.useClock;
      return e.promise;
    }
    return this.load(k);
  }

  /** True when frame k is loaded (without marking it used). */
  has(k) {
    const e = this.entries.get(k);
    return e !== undefined && e.frame !== null;
  }

  /**
   * Moves the play head to frame k and prefetches `window` frames after it. With a stride s > 1
   * (drawing is slower than the run's frame rate, so playback shows about every s-th frame),
   * only the frames at multiples of s are prefetched: fetching the others would take network and
   * CPU time from drawing, and a fixed grid keeps what was prefetched useful as k moves on.
   */
  setPlayhead(k, stride = 1) {
    this.playhead = k;
    this.stride = Math.max(1, Math.floor(stride));
    this.pump();
  }

  pump() {
    const last = this.manifest.frame_count - 1;
    const s = this.stride;
    const first = Math.ceil(this.playhead / s) * s;
    for (let i = 0; i <= this.window && this.inFlight < this.maxInFlight; ++i) {
      const k = first + i * s;
      if (k > last) break;
      if (!this.entries.has(k)) this.load(k);
    }
  }

  load(k) {
    const path = this.manifest.frames[k];
    const entry = { frame: null, error: null, promise: null, lastUsed: ++this.useClock };
    this.entries.set(k, entry);
    this.inFlight++;
    entry.promise = this.fetchAndParse(k, path).then(
      (frame) => {
        entry.frame = frame;
        return frame;
      },
      (err) => {
        entry.error = err instanceof FrameError ? err : new FrameError(k, path, String(err && err.message || err));
        this.onError(entry.error);
        throw entry.error;
      },
    ).finally(() => {
      this.inFlight--;
      this.evict();
      this.pump();
    });
    // Nobody may be waiting on a prefetch; its failure is reported through onError.
    entry.promise.catch(() => {});
    return entry.promise;
  }

  async fetchAndParse(k, path) {
    let response;
    try {
      response = await fetch(runFileUrl(this.baseUrl, path));
    } catch (err) {
      throw new FrameError(k, path, `could not be fetched (${err.message})`);
    }
    if (!response.ok) {
      throw new FrameError(k, path, `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
    }
    let buffer;
    try {
      buffer = await response.arrayBuffer();
    } catch (err) {
      // A connection cut mid-body is a truncated file as far as the viewer can tell.
      throw new FrameError(k, path, `download failed (${err.message})`);
    }
    this.bytesFetched += buffer.byteLength;
    try {
      return parseFrame(buffer, k, this.manifest);
    } catch (err) {
      if (err instanceof FormatError) throw new FrameError(k, path, err.message);
      throw err;
    }
  }

  /** Drops the least recently used loaded frames outside the prefetch window until within capacity. */
  evict() {
    let loaded = 0;
    for (const e of this.entries.values()) if (e.frame) loaded++;
    if (loaded <= this.capacity) return;
    const lo = this.playhead;
    const hi = this.playhead + this.window * this.stride;
    const victims = [];
    for (const [k, e] of this.entries) {
      if (e.frame && (k < lo || k > hi)) victims.push([e.lastUsed, k]);
    }
    victims.sort((a, b) => a[0] - b[0]);
    for (let i = 0; i < victims.length && loaded > this.capacity; ++i, --loaded) {
      this.entries.delete(victims[i][1]);
    }
  }

  /** Frames held in memory, and their bytes: for the status line and tests. */
  usage() {
    let frames = 0;
    let bytes = 0;
    for (const e of this.entries.values()) {
      if (e.frame) {
        frames++;
        bytes += e.frame.byteLength;
      }
    }
    return { frames, bytes, bytesText: formatCount(bytes) };
  }
}
