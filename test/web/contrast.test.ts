/**
 * The UI's colours meet WCAG 2.2 AA in both themes: 4.5:1 for text (severity and state labels on
 * their tints, body and muted text, links, buttons) and 3:1 for graphics (chart bars on a card).
 * Reads the custom properties straight from the stylesheets, so a palette change is checked here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const styles = new URL('../../web/src/styles/', import.meta.url);
const css = ['base.css', 'severity.css'].map((f) => readFileSync(new URL(f, styles), 'utf8')).join('\n');

type Theme = Record<string, string>;

/** Light: the custom properties outside the dark media query; dark: those inside it, over light. */
function themes(source: string): { light: Theme; dark: Theme } {
  const light: Theme = {};
  const dark: Theme = {};
  const marker = '@media (prefers-color-scheme: dark)';
  let rest = source;
  while (rest.length) {
    const at = rest.indexOf(marker);
    const plain = at === -1 ? rest : rest.slice(0, at);
    Object.assign(light, properties(plain));
    if (at === -1) break;
    const end = blockEnd(rest, rest.indexOf('{', at));
    Object.assign(dark, properties(rest.slice(at, end)));
    rest = rest.slice(end);
  }
  return { light, dark: { ...light, ...dark } };
}

function blockEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) return i + 1;
  }
  return text.length;
}

function properties(text: string): Theme {
  const out: Theme = {};
  for (const m of text.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})\b/g)) out[m[1]!] = m[2]!.toLowerCase();
  return out;
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];
const STATES = ['complete', 'failed', 'pending', 'processing', 'never_scanned'];

/** [what, foreground, background, minimum] */
function pairs(t: Theme): [string, string, string, number][] {
  const v = (name: string) => {
    const value = t[name];
    if (!value) throw new Error(`--${name} is not defined as a #rrggbb colour`);
    return value;
  };
  return [
    ...SEVERITIES.map((s): [string, string, string, number] => [`${s} label on its tint`, v(`sev-${s}-fg`), v(`sev-${s}-bg`), 4.5]),
    ...SEVERITIES.map((s): [string, string, string, number] => [`${s} bar on a card`, v(`sev-${s}-solid`), v('surface'), 3]),
    ...SEVERITIES.map((s): [string, string, string, number] => [`${s} bar on its track`, v(`sev-${s}-solid`), v('surface-sunken'), 3]),
    ...STATES.map((s): [string, string, string, number] => [`${s} state on its tint`, v(`state-${s}-fg`), v(`state-${s}-bg`), 4.5]),
    ['text on a card', v('text'), v('surface'), 4.5],
    ['muted text on a card', v('text-muted'), v('surface'), 4.5],
    ['muted text on the page', v('text-muted'), v('bg'), 4.5],
    ['muted text in a table header', v('text-muted'), v('surface-2'), 4.5],
    ['muted text on sunken panels', v('text-muted'), v('surface-sunken'), 4.5],
    ['links on a card', v('accent'), v('surface'), 4.5],
    ['primary button label', v('accent-text'), v('accent'), 4.5],
    ['disabled button label', v('disabled-text'), v('disabled-bg'), 4.5],
    ['error heading on its tint', v('danger'), v('danger-soft'), 4.5],
    ['danger button label', v('surface'), v('danger'), 4.5],
    ['fixed / success text on a card', v('success'), v('surface'), 4.5],
    ['header links', v('header-muted'), v('header-bg'), 4.5],
  ];
}

const { light, dark } = themes(css);

describe.each([['light', light], ['dark', dark]] as const)('%s theme contrast (WCAG AA)', (name, theme) => {
  const rows = pairs(theme);
  it.each(rows)('%s: %s on %s', (_what, fg, bg, min) => {
    expect(contrast(fg, bg)).toBeGreaterThanOrEqual(min);
  });
});
