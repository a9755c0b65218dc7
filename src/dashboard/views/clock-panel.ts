/**
 * The sandbox clock in the top bar: the current service time and the buttons that move it (and every chain)
 * through `POST /api/v1/sandbox/clock/advance`.
 */
import type { BrowserElement } from '../browser.js';
import { fill, h } from '../dom.js';
import { formatClock } from '../format.js';

export const ADVANCE_PRESETS = [
  { label: '+1 min', duration: '1m' },
  { label: '+1 h', duration: '1h' },
  { label: '+1 day', duration: '1d' },
] as const;

export interface ClockPanel {
  showTime(nowMs: number | undefined): void;
  showResult(text: string, error?: boolean): void;
  setBusy(busy: boolean): void;
}

export function mountClockPanel(region: BrowserElement, onAdvance: (duration: string) => void): ClockPanel {
  const now = h('span', { className: 'clock-now', 'data-testid': 'clock-now', title: 'Service clock (UTC)' }, '—');
  const buttons = ADVANCE_PRESETS.map((preset) =>
    h('button', { type: 'button', 'data-advance': preset.duration, onclick: () => onAdvance(preset.duration) }, preset.label),
  );
  const custom = h('input', {
    type: 'text',
    placeholder: '31h, 90s, 2d',
    'aria-label': 'Custom duration',
    'data-testid': 'advance-custom',
    spellcheck: 'false',
  });
  const advanceCustom = () => {
    const value = custom.value.trim();
    if (value !== '') onAdvance(value);
  };
  custom.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') advanceCustom();
  });
  const customButton = h('button', { type: 'button', 'data-advance': 'custom', onclick: advanceCustom }, 'Advance');
  const result = h('span', { className: 'clock-result', 'data-testid': 'advance-result', role: 'status' });
  fill(region, h('span', { className: 'muted' }, 'Clock'), now, ...buttons, custom, customButton, result);

  return {
    showTime(nowMs) {
      now.textContent = formatClock(nowMs);
    },
    showResult(text, error = false) {
      result.textContent = text;
      result.toggleAttribute('data-error', error);
    },
    setBusy(busy) {
      for (const button of [...buttons, customButton]) button.disabled = busy;
    },
  };
}
