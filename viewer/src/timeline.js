// The timeline bar: play/pause, a slider over the frames, the playback speed (in simulated
// seconds per real second) and the current time. It only reports what the user does and shows
// what it is told; the player owns the clock.

export const SPEEDS = [0.25, 0.5, 1, 2, 4];

export class Timeline {
  /**
   * @param root      the element holding the controls (see index.html: #timeline)
   * @param times     the manifest's times_s
   * @param handlers  { playPause(), seek(k), speed(x) }
   */
  constructor(root, times, handlers) {
    this.times = times;
    this.button = root.querySelector('#play');
    this.slider = root.querySelector('#scrub');
    this.speedSelect = root.querySelector('#speed');
    this.timeText = root.querySelector('#time');
    this.frameText = root.querySelector('#frame');

    this.slider.min = '0';
    this.slider.max = String(times.length - 1);
    this.slider.step = '1';
    this.slider.value = '0';
    this.slider.disabled = times.length < 2;
    this.speedSelect.replaceChildren(...SPEEDS.map((s) => new Option(`${s}x`, String(s), s === 1, s === 1)));

    this.button.addEventListener('click', () => handlers.playPause());
    // 'input' fires while dragging, so the picture follows the thumb.
    this.slider.addEventListener('input', () => handlers.seek(Number(this.slider.value)));
    this.speedSelect.addEventListener('change', () => handlers.speed(Number(this.speedSelect.value)));
    this.last = -1;
    this.digits = timeDigits(times);
    this.endText = formatTime(times[times.length - 1], this.digits);
  }

  /** Shows frame k (its slider position, time and number); cheap when nothing changed. */
  setFrame(k) {
    if (k === this.last) return;
    this.last = k;
    this.slider.value = String(k);
    this.timeText.textContent = `${formatTime(this.times[k], this.digits)} / ${this.endText}`;
    // Frame numbers as in the file names and error messages: 0 to N-1.
    this.frameText.textContent = `frame ${k} / ${this.times.length - 1}`;
  }

  setSpeed(x) {
    if (Number(this.speedSelect.value) !== x && SPEEDS.includes(x)) this.speedSelect.value = String(x);
  }

  setPlaying(playing) {
    this.button.textContent = playing ? 'Pause' : 'Play';
    this.button.setAttribute('aria-pressed', String(playing));
  }
}

/** Decimals that tell consecutive frames apart: one more than the smallest frame spacing needs. */
function timeDigits(times) {
  let dt = Infinity;
  for (let k = 1; k < times.length; ++k) dt = Math.min(dt, times[k] - times[k - 1]);
  if (!Number.isFinite(dt)) return 2;
  return Math.max(1, Math.min(6, Math.ceil(-Math.log10(dt)) + 1));
}

function formatTime(t, digits) {
  return `${t.toFixed(digits)} s`;
}
