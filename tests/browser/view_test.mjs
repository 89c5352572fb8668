// Browser test of the talus view page, with headless Chromium driven by playwright-core.
//
//   node tests/browser/view_test.mjs --url http://127.0.0.1:PORT/ --screenshots DIR
//        [--name NAME] [--expect-error] [--play-seconds 3] [--chromium /usr/bin/chromium]
//        [--expect-title TEXT]
//
// Checks that the page draws something (pixel statistics of the canvas), that seeking changes
// the picture, and measures the open time (navigation start to talusViewer.ready) and the
// playback frame rate. With --expect-error it checks instead that the page shows an error in
// #error (a run with a missing or broken file). Prints one JSON line; exit 0 on pass, 1 on
// failure (with the reason on stderr), 2 on bad usage.

import { createRequire } from 'node:module';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';

// playwright-core is a dev dependency of the viewer (npm ci in viewer/).
const require = createRequire(new URL('../../viewer/package.json', import.meta.url));
const { chromium } = require('playwright-core');

// Thresholds: a blank canvas is its background colour everywhere. A drawn scene covers at least
// 1% of it with other colours (a simple scene may have few: a flat bed at rest and a tool), with
// some spread in brightness. The seek check asks for a visible change in at least 0.5% of the
// pixels.
const MIN_DRAWN_FRACTION = 0.01;
const MIN_LUMA_STD = 2;
const MIN_CHANGED_FRACTION = 0.005;
const CHANGED_PIXEL_DELTA = 24; // sum of |dr|+|dg|+|db| for a pixel to count as changed

function parseArgs(argv) {
  const a = { url: null, screenshots: null, name: 'view', expectError: false, playSeconds: 3,
    chromium: '/usr/bin/chromium', timeoutS: 60 };
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`${k} needs a value`);
      return argv[++i];
    };
    if (k === '--url') a.url = next();
    else if (k === '--screenshots') a.screenshots = next();
    else if (k === '--name') a.name = next();
    else if (k === '--expect-error') a.expectError = true;
    else if (k === '--play-seconds') a.playSeconds = Number(next());
    else if (k === '--chromium') a.chromium = next();
    else if (k === '--timeout') a.timeoutS = Number(next());
    else if (k === '--expect-title') a.expectTitle = next();
    else usage(`unknown argument ${k}`);
  }
  if (!a.url || !a.screenshots) usage('--url and --screenshots are required');
  return a;
}

function usage(msg) {
  console.error(`view_test: ${msg}\nusage: node tests/browser/view_test.mjs --url URL --screenshots DIR [--name NAME] [--expect-error] [--play-seconds S] [--chromium PATH]`);
  process.exit(2);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Chromium may still be being installed (apt) when the test starts: wait for it a while. */
async function waitForChromium(path) {
  for (let i = 0; !existsSync(path); ++i) {
    if (i === 0) console.error(`view_test: waiting for ${path} to exist…`);
    if (i >= 300) throw new Error(`${path} does not exist (install Debian's chromium package)`);
    await sleep(1000);
  }
}

/** Pixel statistics of PNG screenshots, decoded by the browser itself (no PNG library here). */
async function pixelStats(page, pngA, pngB) {
  return page.evaluate(async ([a, b, delta]) => {
    async function pixels(b64) {
      const blob = await (await fetch(`data:image/png;base64,${b64}`)).blob();
      const bmp = await createImageBitmap(blob);
      const c = new OffscreenCanvas(bmp.width, bmp.height);
      const ctx = c.getContext('2d');
      ctx.drawImage(bmp, 0, 0);
      return ctx.getImageData(0, 0, bmp.width, bmp.height);
    }
    const A = await pixels(a);
    const d = A.data;
    const colours = new Map();
    let sum = 0;
    let sum2 = 0;
    const n = A.width * A.height;
    for (let i = 0; i < d.length; i += 4) {
      const key = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
      colours.set(key, (colours.get(key) || 0) + 1);
      const l = 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2];
      sum += l;
      sum2 += l * l;
    }
    const mean = sum / n;
    // The most common colour is the background; everything else was drawn.
    const background = Math.max(...colours.values());
    const out = { width: A.width, height: A.height, distinctColours: colours.size,
      drawnFraction: 1 - background / n, lumaMean: mean, lumaStd: Math.sqrt(Math.max(0, sum2 / n - mean * mean)) };
    if (b) {
      const B = await pixels(b);
      let changed = 0;
      const e = B.data;
      if (B.width === A.width && B.height === A.height) {
        for (let i = 0; i < d.length; i += 4) {
          if (Math.abs(d[i] - e[i]) + Math.abs(d[i + 1] - e[i + 1]) + Math.abs(d[i + 2] - e[i + 2]) > delta) changed++;
        }
      }
      out.changedFraction = changed / n;
    }
    return out;
  }, [pngA.toString('base64'), pngB ? pngB.toString('base64') : null, CHANGED_PIXEL_DELTA]);
}

async function errorText(page) {
  return (await page.locator('#error').textContent()) || '';
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  mkdirSync(args.screenshots, { recursive: true });
  await waitForChromium(args.chromium);
  const browser = await chromium.launch({
    executablePath: args.chromium,
    // No GPU here: ANGLE on SwiftShader gives WebGL 2 in software.
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
      // Composite the page in software, as Chromium does by itself on a machine without a GPU
      // (WebGL still runs on SwiftShader); compositing through SwiftShader costs a third of the frame rate.
      '--disable-gpu-compositing'],
  });
  const result = { name: args.name, url: args.url, ok: false };
  const logs = [];
  try {
    await run(browser, args, result, logs);
  } catch (err) {
    result.failure = err.message;
  } finally {
    if (logs.length) result.logs = logs.slice(0, 20);
    await browser.close();
  }
  return result;
}

async function run(browser, args, result, logs) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(args.timeoutS * 1000);
  page.on('console', (m) => {
    // Reading back the canvas for a screenshot makes SwiftShader warn about a stall: not the page's doing.
    if ((m.type() === 'error' || m.type() === 'warning') && !/GPU stall due to ReadPixels/.test(m.text())) {
      logs.push(`console ${m.type()}: ${m.text()}`);
    }
  });
  page.on('pageerror', (e) => logs.push(`page error: ${e.message}`));
  await page.goto(args.url, { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.talusViewer !== undefined);
  // performance.now() counts from the navigation start.
  const opened = await page.evaluate(() => window.talusViewer.ready.then(
    () => ({ ok: true, at: performance.now() }),
    (e) => ({ ok: false, at: performance.now(), message: String(e && e.message) })));
  result.frame_count = await page.evaluate(() => window.talusViewer.frameCount);
  const canvas = page.locator('#viewport canvas');
  if (args.expectTitle) {
    result.title = await page.title();
    if (!result.title.includes(args.expectTitle)) {
      throw new Error(`the page's title '${result.title}' does not name '${args.expectTitle}'`);
    }
  }

  if (args.expectError) {
    // The bad frame may be anywhere: walk through the frames until the page reports it.
    if (opened.ok && !(await errorText(page))) {
      await page.evaluate(async () => {
        const v = window.talusViewer;
        for (let k = 0; k < v.frameCount; ++k) {
          try { await v.seek(k); } catch { break; }
        }
      });
    }
    const text = (await errorText(page)).trim();
    await page.screenshot({ path: join(args.screenshots, `${args.name}_error.png`) });
    result.error = text;
    if (!text) throw new Error('expected an error in #error, but the page shows none');
    if (!(await page.locator('#error').isVisible())) throw new Error('#error has text but is not visible');
    result.ok = true;
    return;
  }

  if (!opened.ok) throw new Error(`the page did not open the run: ${opened.message}`);
  result.open_s = +(opened.at / 1000).toFixed(3);
  const first = await canvas.screenshot({ path: join(args.screenshots, `${args.name}_first.png`) });
  const s1 = await pixelStats(page, first);
  result.first = { distinct_colours: s1.distinctColours, drawn_fraction: +s1.drawnFraction.toFixed(4),
    luma_std: +s1.lumaStd.toFixed(2) };
  if (s1.drawnFraction < MIN_DRAWN_FRACTION || s1.lumaStd < MIN_LUMA_STD) {
    throw new Error(`the canvas looks blank: ${(100 * s1.drawnFraction).toFixed(2)} % of it drawn (need ${100 * MIN_DRAWN_FRACTION} %), luminance std ${s1.lumaStd.toFixed(2)} (need ${MIN_LUMA_STD})`);
  }

  if (result.frame_count > 1) {
    const target = result.frame_count - 1;
    await page.evaluate((k) => window.talusViewer.seek(k), target);
    const current = await page.evaluate(() => window.talusViewer.currentFrame);
    if (current !== target) throw new Error(`after seek(${target}) currentFrame is ${current}`);
    const seek = await canvas.screenshot({ path: join(args.screenshots, `${args.name}_seek.png`) });
    // The whole page at the last frame (timeline, legends, plots), for a person to look at.
    await page.screenshot({ path: join(args.screenshots, `${args.name}_page.png`) });
    const s2 = await pixelStats(page, first, seek);
    result.seek_changed_fraction = +s2.changedFraction.toFixed(4);
    if (s2.changedFraction < MIN_CHANGED_FRACTION) {
      throw new Error(`seeking to frame ${target} changed only ${(100 * s2.changedFraction).toFixed(2)}% of the pixels (need ${100 * MIN_CHANGED_FRACTION}%)`);
    }

    // Playback: from the start at 1x; a short run is restarted when it ends, so that the
    // measurement spans the whole period.
    await page.evaluate(() => window.talusViewer.seek(0));
    const before = await page.evaluate(() => { window.talusViewer.setSpeed(1); window.talusViewer.play(); return window.talusViewer.stats(); });
    const t0 = Date.now();
    let lastFps = null;
    while (Date.now() - t0 < args.playSeconds * 1000) {
      await sleep(100);
      const st = await page.evaluate(() => {
        const v = window.talusViewer;
        const s = v.stats();
        if (!v.playing) v.play();
        return s;
      });
      if (Date.now() - t0 >= 1000) lastFps = st;
    }
    const after = await page.evaluate(() => { const s = window.talusViewer.stats(); window.talusViewer.pause(); return s; });
    const elapsed = (Date.now() - t0) / 1000;
    result.play_s = +elapsed.toFixed(2);
    result.avg_drawn_fps = +((after.framesDrawn - before.framesDrawn) / elapsed).toFixed(1);
    result.avg_shown_fps = +((after.framesShown - before.framesShown) / elapsed).toFixed(1);
    result.drawn_fps = (lastFps || after).drawnFps;
    result.shown_fps = (lastFps || after).shownFps;
    result.particles_drawn = after.particlesDrawn;
    result.load_avg_1m = +loadavg()[0].toFixed(2);
    if (after.framesDrawn <= before.framesDrawn) throw new Error('playing drew no frames');
  }
  const text = await errorText(page);
  if (text) throw new Error(`the page shows an error: ${text}`);
  result.ok = true;
}

main().then((result) => {
  console.log(JSON.stringify(result));
  if (!result.ok) {
    console.error(`view_test FAILED (${result.name}, ${result.url}): ${result.failure}`);
    for (const line of result.logs || []) console.error(`  ${line}`);
  }
  process.exit(result.ok ? 0 : 1);
}, (err) => {
  console.error(`view_test FAILED (${process.argv.slice(2).join(' ')}): ${err.message}`);
  process.exit(1);
});
