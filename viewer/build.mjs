// Builds the talus view page into a folder: node viewer/build.mjs OUTDIR
// writes OUTDIR/index.html and OUTDIR/viewer.js (minified, three.js bundled in, so the page
// needs nothing from the network). Run `npm ci` in viewer/ first.

import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outdir = process.argv[2];
if (!outdir) {
  console.error('usage: node viewer/build.mjs OUTDIR');
  process.exit(2);
}
const out = resolve(outdir);
await mkdir(out, { recursive: true });
const result = await build({
  entryPoints: [join(here, 'src', 'main.js')],
  outfile: join(out, 'viewer.js'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  // three.js's MIT licence notice stays in the bundle, at its end.
  legalComments: 'eof',
  logLevel: 'warning',
  metafile: true,
});
await copyFile(join(here, 'index.html'), join(out, 'index.html'));
const bytes = result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].bytes;
console.log(`viewer: wrote ${join(out, 'index.html')} and viewer.js (${(bytes / 1024).toFixed(0)} KiB)`);
