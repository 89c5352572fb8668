// Parsing and validation of the talus-view format, version 1 (docs: the format spec that the
// C++ writer follows; summary in viewer/README.md).
//
// Everything here is pure (no DOM, no three.js) so that it can be read against the spec line by
// line. A file that does not follow the spec throws a FormatError whose message says what is
// wrong in words a person can act on; the page shows that message instead of a blank canvas.

export class FormatError extends Error {
  constructor(message) {
    super(message);
    this.name = 'FormatError';
  }
}

const HEADER_BYTES = 32;
const MAGIC = 'TVF1';
const FLAG_QUANTISED = 1;
const KNOWN_FLAGS = FLAG_QUANTISED;
const TIERS = ['particles', 'scm', 'shaping', 'robots', 'wrench'];

/**
 * URL of a file of the run folder: base ("run/") plus the manifest's relative path, each
 * segment escaped so that names with '#', '?' or spaces still work.
 */
export function runFileUrl(base, path) {
  return base + path.split('/').map(encodeURIComponent).join('/');
}

/** 1234567 -> "1,234,567": byte counts in messages are easier to compare with separators. */
export function formatCount(n) {
  return Number(n).toLocaleString('en-US');
}

// ---------------------------------------------------------------------------------------------
// manifest.json

function fail(what) {
  throw new FormatError(what);
}

function isNumber(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

function requireKey(obj, key, where) {
  if (!(key in obj)) fail(`missing "${key}"${where ? ` in ${where}` : ''}`);
  return obj[key];
}

function requireNumber(obj, key, where, { positive = false, integer = false, min } = {}) {
  const v = requireKey(obj, key, where);
  const name = where ? `${where}.${key}` : key;
  if (!isNumber(v)) fail(`${name} must be a number, got ${JSON.stringify(v)}`);
  if (integer && !Number.isInteger(v)) fail(`${name} must be an integer, got ${v}`);
  if (positive && !(v > 0)) fail(`${name} must be > 0, got ${v}`);
  if (min !== undefined && v < min) fail(`${name} must be >= ${min}, got ${v}`);
  return v;
}

function requireNumbers(obj, key, where, length) {
  const v = requireKey(obj, key, where);
  const name = where ? `${where}.${key}` : key;
  if (!Array.isArray(v) || (length !== undefined && v.length !== length) || !v.every(isNumber)) {
    fail(`${name} must be ${length !== undefined ? `${length} numbers` : 'an array of numbers'}`);
  }
  return v;
}

function requireString(obj, key, where) {
  const v = requireKey(obj, key, where);
  if (typeof v !== 'string') fail(`${where ? `${where}.` : ''}${key} must be a string`);
  return v;
}

/**
 * Paths in the manifest are relative to the run folder OUT and are fetched as "run/<path>".
 * Refuse anything that would leave the run folder, so that a bad manifest gives a clear message
 * here rather than an odd 404 from the server.
 */
export function checkRelativePath(path, name) {
  if (typeof path !== 'string' || path === '') fail(`${name} must be a non-empty string`);
  if (path.startsWith('/') || path.includes('\\') || path.split('/').some((s) => s === '..')) {
    fail(`${name} must be a path relative to the run folder, got "${path}"`);
  }
  return path;
}

function parseShape(shape, where) {
  if (shape === null || typeof shape !== 'object') fail(`${where} must be an object`);
  const kind = requireString(shape, 'kind', where);
  switch (kind) {
    case 'box':
      requireNumbers(shape, 'size_m', where, 3);
      if (!shape.size_m.every((s) => s > 0)) fail(`${where}.size_m must be > 0`);
      break;
    case 'sphere':
      requireNumber(shape, 'radius_m', where, { positive: true });
      break;
    case 'cylinder':
    case 'capsule':
      requireNumber(shape, 'radius_m', where, { positive: true });
      requireNumber(shape, 'length_m', where, { min: 0 });
      break;
    case 'plane':
      requireNumbers(shape, 'size_m', where, 2);
      if (!shape.size_m.every((s) => s > 0)) fail(`${where}.size_m must be > 0`);
      break;
    case 'mesh': {
      const v = requireNumbers(shape, 'vertices_m', where);
      const t = requireNumbers(shape, 'triangles', where);
      if (v.length % 3 !== 0) fail(`${where}.vertices_m length ${v.length} is not a multiple of 3`);
      if (t.length % 3 !== 0) fail(`${where}.triangles length ${t.length} is not a multiple of 3`);
      const nv = v.length / 3;
      for (const i of t) {
        if (!Number.isInteger(i) || i < 0 || i >= nv) {
          fail(`${where}.triangles holds index ${i}, outside 0..${nv - 1}`);
        }
      }
      break;
    }
    default:
      fail(`${where}.kind "${kind}" is not one of box, sphere, cylinder, capsule, plane, mesh`);
  }
  return shape;
}

/**
 * Checks a parsed manifest.json against format v1 and returns it (the same object; the checks
 * guarantee every field the viewer reads is present and well-formed).
 */
export function parseManifest(m) {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) fail('not a JSON object');
  if (m.format !== 'talus-view') fail(`"format" is ${JSON.stringify(m.format)}, expected "talus-view"`);
  if (m.version !== 1) fail(`"version" is ${JSON.stringify(m.version)}; this viewer reads version 1`);
  const tier = requireString(m, 'tier');
  if (!TIERS.includes(tier)) fail(`tier "${tier}" is not one of ${TIERS.join(', ')}`);
  requireString(m, 'scenario');
  requireString(m, 'title');

  const n = requireNumber(m, 'frame_count', '', { integer: true, min: 0 });
  if (n === 0) fail('frame_count is 0: the run wrote no frames');
  const times = requireNumbers(m, 'times_s');
  if (times.length !== n) fail(`times_s has ${times.length} entries, frame_count is ${n}`);
  for (let k = 1; k < n; ++k) {
    if (!(times[k] > times[k - 1])) {
      fail(`times_s must increase: times_s[${k}] = ${times[k]} after times_s[${k - 1}] = ${times[k - 1]}`);
    }
  }
  const frames = requireKey(m, 'frames');
  if (!Array.isArray(frames) || frames.length !== n) {
    fail(`frames must list frame_count = ${n} paths`);
  }
  frames.forEach((p, k) => checkRelativePath(p, `frames[${k}]`));

  const bounds = requireKey(m, 'bounds_m');
  if (bounds === null || typeof bounds !== 'object') fail('bounds_m must be an object');
  const lo = requireNumbers(bounds, 'lo', 'bounds_m', 3);
  const hi = requireNumbers(bounds, 'hi', 'bounds_m', 3);
  for (let a = 0; a < 3; ++a) {
    if (lo[a] > hi[a]) fail(`bounds_m.lo[${a}] = ${lo[a]} is above bounds_m.hi[${a}] = ${hi[a]}`);
  }

  const p = requireKey(m, 'particles');
  if (p !== null) {
    if (typeof p !== 'object') fail('particles must be null or an object');
    requireNumber(p, 'count', 'particles', { integer: true, min: 1 });
    requireNumber(p, 'radius_m', 'particles', { positive: true });
    const rf = requireKey(p, 'radii_file', 'particles');
    if (rf !== null) checkRelativePath(rf, 'particles.radii_file');
  }

  const h = requireKey(m, 'heightmap');
  if (h !== null) {
    if (typeof h !== 'object') fail('heightmap must be null or an object');
    // A surface needs at least 2 x 2 nodes to have any triangles.
    requireNumber(h, 'nx', 'heightmap', { integer: true, min: 2 });
    requireNumber(h, 'ny', 'heightmap', { integer: true, min: 2 });
    requireNumber(h, 'cell_m', 'heightmap', { positive: true });
    requireNumbers(h, 'origin_m', 'heightmap', 2);
  }

  const bodies = requireKey(m, 'bodies');
  if (!Array.isArray(bodies)) fail('bodies must be an array');
  bodies.forEach((b, i) => {
    const where = `bodies[${i}]`;
    if (b === null || typeof b !== 'object') fail(`${where} must be an object`);
    requireString(b, 'name', where);
    requireNumbers(b, 'colour', where, 3);
    parseShape(requireKey(b, 'shape', where), `${where}.shape`);
  });

  const plots = requireKey(m, 'plots');
  if (!Array.isArray(plots)) fail('plots must be an array of paths');
  plots.forEach((path, i) => checkRelativePath(path, `plots[${i}]`));
  return m;
}

// ---------------------------------------------------------------------------------------------
// Frame files (.tvf)

/** Byte length of the particle block for n particles (0 when n is 0). */
function particleBytes(n, quantised) {
  if (n === 0) return 0;
  if (!quantised) return 12 * n + 4 * n;
  const q = 24 + 6 * n;
  const pad = (4 - (q % 4)) % 4; // the speeds start 4-byte aligned (offset 32 is aligned)
  return q + pad + 4 * n;
}

/** The exact size a frame file must have, from its header fields. */
export function expectedFrameBytes(n, h, b, quantised) {
  return HEADER_BYTES + particleBytes(n, quantised) + 4 * h + 28 * b;
}

/** Largest size a frame of this manifest can have (full, not quantised): sizes the cache. */
export function maxFrameBytes(manifest) {
  const n = manifest.particles ? manifest.particles.count : 0;
  const h = manifest.heightmap ? manifest.heightmap.nx * manifest.heightmap.ny : 0;
  return expectedFrameBytes(n, h, manifest.bodies.length, false);
}

/**
 * Parses frame `index` of `manifest` from `buffer` (an ArrayBuffer holding the whole file).
 * Returns typed-array views onto the buffer (no copies; every block starts 4-byte aligned):
 *   { index, time, particleCount, quantised, positions (Float32Array 3n, when not quantised),
 *     qlo, qstep (Float32Array 3), qpositions (Uint16Array 3n, when quantised),
 *     speeds (Float32Array n), heights (Float32Array h), poses (Float32Array 7b), byteLength }
 * Throws FormatError (message without the "frame k (path):" prefix; the caller adds it).
 */
export function parseFrame(buffer, index, manifest) {
  const size = buffer.byteLength;
  if (size < HEADER_BYTES) {
    throw new FormatError(`truncated: ${formatCount(size)} bytes, shorter than the ${HEADER_BYTES}-byte header`);
  }
  const dv = new DataView(buffer);
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (magic !== MAGIC) throw new FormatError(`bad magic ${JSON.stringify(magic)}, expected "${MAGIC}"`);
  const fileIndex = dv.getUint32(4, true);
  if (fileIndex !== index) throw new FormatError(`holds frame index ${fileIndex}, expected ${index}`);
  const time = dv.getFloat64(8, true);
  const n = dv.getUint32(16, true);
  const h = dv.getUint32(20, true);
  const b = dv.getUint32(24, true);
  const flags = dv.getUint32(28, true);

  const np = manifest.particles ? manifest.particles.count : 0;
  if (n !== 0 && n !== np) {
    throw new FormatError(`particle_count ${formatCount(n)}, expected 0 or ${formatCount(np)} (manifest particles.count)`);
  }
  const nh = manifest.heightmap ? manifest.heightmap.nx * manifest.heightmap.ny : 0;
  if (h !== 0 && h !== nh) {
    throw new FormatError(`height_count ${formatCount(h)}, expected 0 or ${formatCount(nh)} (manifest heightmap nx*ny)`);
  }
  if (b !== manifest.bodies.length) {
    throw new FormatError(`body_count ${b}, expected ${manifest.bodies.length} (manifest bodies)`);
  }
  if (flags & ~KNOWN_FLAGS) {
    throw new FormatError(`unknown flags 0x${flags.toString(16)} (version 1 defines bit 0 only)`);
  }
  const quantised = (flags & FLAG_QUANTISED) !== 0;
  const expected = expectedFrameBytes(n, h, b, quantised);
  if (size < expected) {
    throw new FormatError(`truncated: ${formatCount(size)} bytes, expected ${formatCount(expected)}`);
  }
  if (size > expected) {
    throw new FormatError(`too long: ${formatCount(size)} bytes, expected ${formatCount(expected)}`);
  }
  // The manifest's times_s are the index into the timeline; a frame disagreeing with them would
  // play at the wrong moment. A small tolerance allows times printed with ~10 significant digits.
  const tm = manifest.times_s[index];
  if (!(Math.abs(time - tm) <= 1e-9 * Math.max(1, Math.abs(tm)) + 1e-12)) {
    throw new FormatError(`time_s ${time} differs from manifest times_s[${index}] = ${tm}`);
  }

  const frame = {
    index, time, particleCount: n, quantised: quantised && n > 0,
    positions: null, qlo: null, qstep: null, qpositions: null,
    speeds: null, heights: null, poses: null, byteLength: size,
  };
  let off = HEADER_BYTES;
  if (n > 0) {
    if (frame.quantised) {
      frame.qlo = new Float32Array(buffer, off, 3);
      frame.qstep = new Float32Array(buffer, off + 12, 3);
      off += 24;
      frame.qpositions = new Uint16Array(buffer, off, 3 * n);
      off += 6 * n;
      off += (4 - (off % 4)) % 4;
    } else {
      frame.positions = new Float32Array(buffer, off, 3 * n);
      off += 12 * n;
    }
    frame.speeds = new Float32Array(buffer, off, n);
    off += 4 * n;
  }
  if (h > 0) {
    frame.heights = new Float32Array(buffer, off, h);
    off += 4 * h;
  }
  frame.poses = new Float32Array(buffer, off, 7 * b);
  return frame;
}

/**
 * Positions of a frame as float32 x,y,z triples, dequantising into `out` when needed
 * (out: a Float32Array of 3n kept by the caller, so that playback allocates nothing).
 */
export function framePositions(frame, out) {
  if (!frame.quantised) return frame.positions;
  const q = frame.qpositions;
  const [lx, ly, lz] = frame.qlo;
  const [sx, sy, sz] = frame.qstep;
  for (let i = 0, e = q.length; i < e; i += 3) {
    out[i] = lx + q[i] * sx;
    out[i + 1] = ly + q[i + 1] * sy;
    out[i + 2] = lz + q[i + 2] * sz;
  }
  return out;
}
