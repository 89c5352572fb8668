// Unit tests of the viewer's talus-view format parser (viewer/src/format.js), no browser needed:
//   node --test tests/browser/format_test.mjs

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifest, parseFrame, expectedFrameBytes, framePositions, FormatError } from '../../viewer/src/format.js';

function manifest({ n = 0, nx = 0, ny = 0, bodies = 0, frames = 3 } = {}) {
  return {
    format: 'talus-view', version: 1, tier: 'particles', scenario: 's', title: 't',
    frame_count: frames,
    times_s: Array.from({ length: frames }, (_, k) => k * 0.1),
    frames: Array.from({ length: frames }, (_, k) => `view/frames/${String(k).padStart(6, '0')}.tvf`),
    bounds_m: { lo: [0, 0, 0], hi: [1, 1, 1] },
    particles: n ? { count: n, radius_m: 0.01, radii_file: null } : null,
    heightmap: nx ? { nx, ny, cell_m: 0.1, origin_m: [0, 0] } : null,
    bodies: Array.from({ length: bodies }, (_, i) => ({ name: `b${i}`, colour: [1, 0, 0], shape: { kind: 'sphere', radius_m: 0.1 } })),
    plots: [],
  };
}

/** A frame file as the format describes it, written independently of the parser. */
function frameBytes(m, index, { quantised = false, n, h, magic = 'TVF1', flags } = {}) {
  n = n ?? (m.particles ? m.particles.count : 0);
  h = h ?? (m.heightmap ? m.heightmap.nx * m.heightmap.ny : 0);
  const b = m.bodies.length;
  const buf = new ArrayBuffer(expectedFrameBytes(n, h, b, quantised));
  const dv = new DataView(buf);
  for (let i = 0; i < 4; ++i) dv.setUint8(i, magic.charCodeAt(i));
  dv.setUint32(4, index, true);
  dv.setFloat64(8, m.times_s[index], true);
  dv.setUint32(16, n, true);
  dv.setUint32(20, h, true);
  dv.setUint32(24, b, true);
  dv.setUint32(28, flags ?? (quantised ? 1 : 0), true);
  let off = 32;
  if (n) {
    if (quantised) {
      [0, 1, 2].forEach((a) => dv.setFloat32(off + 4 * a, a, true));          // lo
      [0, 1, 2].forEach((a) => dv.setFloat32(off + 12 + 4 * a, 0.5, true));   // step
      off += 24;
      for (let i = 0; i < 3 * n; ++i) dv.setUint16(off + 2 * i, i, true);
      off += 6 * n;
      off += (4 - (off % 4)) % 4;
    } else {
      for (let i = 0; i < 3 * n; ++i) dv.setFloat32(off + 4 * i, i, true);
      off += 12 * n;
    }
    for (let i = 0; i < n; ++i) dv.setFloat32(off + 4 * i, 10 + i, true);
    off += 4 * n;
  }
  for (let i = 0; i < h; ++i) dv.setFloat32(off + 4 * i, -i, true);
  off += 4 * h;
  for (let i = 0; i < b; ++i) [1, 2, 3, 1, 0, 0, 0].forEach((v, j) => dv.setFloat32(off + 28 * i + 4 * j, v, true));
  return buf;
}

function throwsFormat(fn, pattern) {
  assert.throws(fn, (e) => e instanceof FormatError && pattern.test(e.message), `expected ${pattern}`);
}

test('a full frame parses into views of its blocks', () => {
  const m = parseManifest(manifest({ n: 3, nx: 2, ny: 3, bodies: 2 }));
  const f = parseFrame(frameBytes(m, 1), 1, m);
  assert.equal(f.byteLength, 32 + 16 * 3 + 4 * 6 + 28 * 2);
  assert.deepEqual([...f.positions], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual([...f.speeds], [10, 11, 12]);
  assert.deepEqual([...f.heights], [-0, -1, -2, -3, -4, -5]);
  assert.deepEqual([...f.poses.subarray(7, 14)], [1, 2, 3, 1, 0, 0, 0]);
  assert.equal(f.time, 0.1);
});

test('quantised positions with an odd count are padded before the speeds', () => {
  const m = parseManifest(manifest({ n: 3 }));
  assert.equal(expectedFrameBytes(3, 0, 0, true), 32 + 24 + 18 + 2 + 12);
  const f = parseFrame(frameBytes(m, 0, { quantised: true }), 0, m);
  assert.ok(f.quantised);
  assert.deepEqual([...f.speeds], [10, 11, 12]);
  const p = framePositions(f, new Float32Array(9));
  assert.deepEqual([...p], [0, 1.5, 3, 1.5, 3, 4.5, 3, 4.5, 6]); // lo[a] + q * 0.5
});

test('frames without particles or heights are allowed (0 counts)', () => {
  const m = parseManifest(manifest({ n: 5, nx: 2, ny: 2 }));
  const f = parseFrame(frameBytes(m, 2, { n: 0, h: 0 }), 2, m);
  assert.equal(f.particleCount, 0);
  assert.equal(f.heights, null);
});

test('truncated and over-long frames are errors that give both sizes', () => {
  const m = parseManifest(manifest({ n: 1000 }));
  const full = frameBytes(m, 0);
  throwsFormat(() => parseFrame(full.slice(0, 1000), 0, m), /^truncated: 1,000 bytes, expected 16,032$/);
  throwsFormat(() => parseFrame(full.slice(0, 10), 0, m), /shorter than the 32-byte header/);
  const long = new Uint8Array(full.byteLength + 4);
  long.set(new Uint8Array(full));
  throwsFormat(() => parseFrame(long.buffer, 0, m), /^too long: 16,036 bytes, expected 16,032$/);
});

test('header fields are checked against the manifest', () => {
  const m = parseManifest(manifest({ n: 4, nx: 2, ny: 2, bodies: 1 }));
  throwsFormat(() => parseFrame(frameBytes(m, 0, { magic: 'TVF2' }), 0, m), /bad magic "TVF2"/);
  throwsFormat(() => parseFrame(frameBytes(m, 1), 2, m), /holds frame index 1, expected 2/);
  throwsFormat(() => parseFrame(frameBytes(m, 0, { n: 3 }), 0, m), /particle_count 3, expected 0 or 4/);
  throwsFormat(() => parseFrame(frameBytes(m, 0, { h: 3 }), 0, m), /height_count 3, expected 0 or 4/);
  throwsFormat(() => parseFrame(frameBytes(m, 0, { flags: 4 }), 0, m), /unknown flags 0x4/);
  const other = parseManifest({ ...manifest({ n: 4, nx: 2, ny: 2, bodies: 2 }) });
  throwsFormat(() => parseFrame(frameBytes(m, 0), 0, other), /body_count 1, expected 2/);
  const shifted = parseManifest({ ...manifest({ n: 4, nx: 2, ny: 2, bodies: 1 }), times_s: [0.5, 0.6, 0.7] });
  throwsFormat(() => parseFrame(frameBytes(m, 0), 0, shifted), /time_s 0 differs from manifest times_s\[0\] = 0.5/);
});

test('the manifest is checked', () => {
  const bad = (patch, pattern) => throwsFormat(() => parseManifest({ ...manifest({ n: 2 }), ...patch }), pattern);
  bad({ format: 'other' }, /"format" is "other"/);
  bad({ version: 2 }, /reads version 1/);
  bad({ tier: 'fluid' }, /tier "fluid"/);
  bad({ frame_count: 0, times_s: [], frames: [] }, /frame_count is 0/);
  bad({ times_s: [0, 0.1] }, /times_s has 2 entries, frame_count is 3/);
  bad({ times_s: [0, 0.2, 0.1] }, /times_s must increase/);
  bad({ frames: ['a', 'b'] }, /frames must list frame_count = 3 paths/);
  bad({ frames: ['a', '../b', 'c'] }, /frames\[1\] must be a path relative to the run folder/);
  bad({ bounds_m: { lo: [0, 0], hi: [1, 1, 1] } }, /bounds_m.lo must be 3 numbers/);
  bad({ particles: { count: 2, radius_m: 0 , radii_file: null } }, /particles.radius_m must be > 0/);
  bad({ heightmap: { nx: 1, ny: 4, cell_m: 0.1, origin_m: [0, 0] } }, /heightmap.nx must be >= 2/);
  bad({ bodies: [{ name: 'x', colour: [1, 1, 1], shape: { kind: 'torus' } }] }, /kind "torus" is not one of/);
  bad({ bodies: [{ name: 'x', colour: [1, 1, 1], shape: { kind: 'mesh', vertices_m: [0, 0, 0], triangles: [0, 0, 1] } }] }, /triangles holds index 1/);
  const { plots, ...noPlots } = manifest();
  throwsFormat(() => parseManifest(noPlots), /missing "plots"/);
  assert.ok(plots);
});

test('every body shape kind of the spec is accepted', () => {
  const m = manifest();
  m.bodies = [
    { kind: 'box', size_m: [1, 2, 3] }, { kind: 'sphere', radius_m: 1 },
    { kind: 'cylinder', radius_m: 1, length_m: 2 }, { kind: 'capsule', radius_m: 1, length_m: 2 },
    { kind: 'plane', size_m: [1, 2] }, { kind: 'mesh', vertices_m: [0, 0, 0, 1, 0, 0, 0, 1, 0], triangles: [0, 1, 2] },
  ].map((shape, i) => ({ name: `b${i}`, colour: [0.5, 0.5, 0.5], shape }));
  assert.equal(parseManifest(m).bodies.length, 6);
});
