// The page around the canvas: title, plots panel, status line and the error box.

import { runFileUrl } from './format.js';

/** Errors shown to the user in #error; a run with a bad file must never look like an empty one. */
export class ErrorBox {
  constructor(element) {
    this.element = element;
    this.messages = [];
  }

  add(message) {
    if (this.messages.includes(message)) return;
    this.messages.push(message);
    // A run with many bad frames lists the first few; the first is usually the one to fix.
    const shown = this.messages.slice(0, 5);
    if (this.messages.length > 5) shown.push(`… and ${this.messages.length - 5} more`);
    this.element.textContent = shown.join('\n');
    this.element.hidden = false;
  }
}

export function setTitle(manifest) {
  const title = manifest.title || manifest.scenario;
  document.title = `${title} – talus view`;
  document.getElementById('title').textContent = title;
  const p = manifest.particles;
  const parts = [
    `tier ${manifest.tier}`,
    `scenario ${manifest.scenario}`,
    `${manifest.frame_count.toLocaleString('en-US')} frames`,
  ];
  if (p) parts.push(`${p.count.toLocaleString('en-US')} particles`);
  if (manifest.heightmap) parts.push(`heightmap ${manifest.heightmap.nx} × ${manifest.heightmap.ny}`);
  if (manifest.bodies.length) parts.push(`${manifest.bodies.length} bodies`);
  document.getElementById('subtitle').textContent = parts.join(' · ');
}

/** The run's plots as images; each opens full size in a new tab. */
export function showPlots(container, plots, base) {
  container.replaceChildren();
  if (plots.length === 0) {
    const none = document.createElement('p');
    none.className = 'muted';
    none.textContent = 'This run wrote no plots.';
    container.append(none);
    return;
  }
  for (const path of plots) {
    const url = runFileUrl(base, path);
    const figure = document.createElement('figure');
    const link = document.createElement('a');
    link.href = url;
    link.target = '_blank';
    link.rel = 'noopener';
    const img = document.createElement('img');
    img.src = url;
    img.alt = path;
    img.loading = 'lazy';
    const caption = document.createElement('figcaption');
    caption.textContent = path;
    img.addEventListener('error', () => {
      caption.textContent = `${path}: could not be loaded`;
      caption.classList.add('bad');
      img.remove();
    });
    link.append(img);
    figure.append(link, caption);
    container.append(figure);
  }
}

export function showStatus(text) {
  const el = document.getElementById('status');
  if (el.textContent !== text) el.textContent = text;
}
