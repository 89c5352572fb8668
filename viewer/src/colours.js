// Colour maps and the colour bar legend.
//
// Each map is a few sRGB stops interpolated into a 256-entry lookup table, used three ways: in
// JS (heightmap vertex colours, particle instance colours), in the particle shader (as uniform
// stops), and in the colour bar, so that the legend always matches what is drawn.

import * as THREE from 'three';

const MAPS = {
  // Perceptually ordered, dark (slow) to bright (fast); matplotlib's "viridis" at 9 stops.
  speed: [
    [0.267, 0.005, 0.329], [0.283, 0.141, 0.458], [0.254, 0.265, 0.530],
    [0.207, 0.372, 0.553], [0.164, 0.471, 0.558], [0.128, 0.567, 0.551],
    [0.135, 0.659, 0.518], [0.478, 0.821, 0.318], [0.993, 0.906, 0.144],
  ],
  // Earth tones for terrain and particle height: wet dark sand up to pale dry sand.
  height: [
    [0.23, 0.17, 0.11], [0.38, 0.28, 0.18], [0.55, 0.42, 0.27],
    [0.70, 0.57, 0.38], [0.83, 0.72, 0.52], [0.95, 0.88, 0.72],
  ],
};

export const LUT_SIZE = 256;

function buildLut(stops) {
  const lut = new Float32Array(LUT_SIZE * 3);
  const c = new THREE.Color();
  for (let i = 0; i < LUT_SIZE; ++i) {
    const x = (i / (LUT_SIZE - 1)) * (stops.length - 1);
    const j = Math.min(Math.floor(x), stops.length - 2);
    const f = x - j;
    const a = stops[j];
    const b = stops[j + 1];
    // Stops are sRGB; three.js lights and blends in linear space, so convert once here.
    c.setRGB(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f, THREE.SRGBColorSpace);
    lut[3 * i] = c.r;
    lut[3 * i + 1] = c.g;
    lut[3 * i + 2] = c.b;
  }
  return lut;
}

const LUTS = { speed: buildLut(MAPS.speed), height: buildLut(MAPS.height) };

/** Linear-space RGB lookup table (Float32Array 256*3) of map 'speed' or 'height'. */
export function lut(name) {
  return LUTS[name];
}

/** sRGB stops of a map, for shaders that interpolate them themselves. */
export function stops(name) {
  return MAPS[name];
}

/**
 * Writes the colours of `values` mapped over [lo, hi] into `out` (Float32Array 3 per value),
 * reading value i at values[i * stride + offset] (stride 3, offset 2: the z of xyz triples).
 */
export function mapColours(values, count, stride, offset, lo, hi, table, out) {
  const scale = hi > lo ? (LUT_SIZE - 1) / (hi - lo) : 0;
  for (let i = 0; i < count; ++i) {
    let t = (values[i * stride + offset] - lo) * scale;
    t = t < 0 ? 0 : t > LUT_SIZE - 1 ? LUT_SIZE - 1 : t;
    const j = 3 * (t | 0);
    out[3 * i] = table[j];
    out[3 * i + 1] = table[j + 1];
    out[3 * i + 2] = table[j + 2];
  }
}

/** A legend: a label, a horizontal gradient of the map, and the range's ends with units. */
export class ColourBar {
  constructor(parent) {
    this.root = document.createElement('div');
    this.root.className = 'colour-bar';
    this.label = document.createElement('div');
    this.label.className = 'colour-bar-label';
    this.canvas = document.createElement('canvas');
    this.canvas.width = 256;
    this.canvas.height = 12;
    this.ends = document.createElement('div');
    this.ends.className = 'colour-bar-ends';
    this.lo = document.createElement('span');
    this.hi = document.createElement('span');
    this.ends.append(this.lo, this.hi);
    this.root.append(this.label, this.canvas, this.ends);
    parent.append(this.root);
    this.key = '';
  }

  /** Redraws only when something shown changes (it is called every frame). */
  set(label, mapName, lo, hi, units) {
    const loText = `${formatValue(lo)} ${units}`;
    const hiText = `${formatValue(hi)} ${units}`;
    const key = `${label}|${mapName}|${loText}|${hiText}`;
    if (key === this.key) return;
    this.key = key;
    this.label.textContent = label;
    this.lo.textContent = loText;
    this.hi.textContent = hiText;
    const ctx = this.canvas.getContext('2d');
    const s = MAPS[mapName];
    const g = ctx.createLinearGradient(0, 0, this.canvas.width, 0);
    s.forEach((c, i) => {
      g.addColorStop(i / (s.length - 1), `rgb(${c.map((v) => Math.round(v * 255)).join(',')})`);
    });
    ctx.fillStyle = g;
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
  }
}

function formatValue(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 100) return v.toFixed(0);
  if (a >= 1) return v.toFixed(2);
  if (a >= 0.01) return v.toFixed(3);
  return v.toExponential(2);
}
