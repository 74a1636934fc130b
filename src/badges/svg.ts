import { makeBadge } from 'badge-maker';
import type { Gate } from '../gates/types.js';
import type { SeverityCounts } from '../domain/changes.js';

const COLOURS = {
  critical: '#e05d44', high: '#fe7d37', medium: '#dfb317', low: '#a4a61d', info: '#97ca00', clean: '#4c1', unknown: '#9f9f9f',
} as const;

/** Open findings, coloured by the worst severity among them. */
export function findingsBadge(open: SeverityCounts | null): string {
  if (open === null) return makeBadge({ label: 'findings', message: 'not scanned', color: COLOURS.unknown, style: 'flat' });
  const present = (['critical', 'high', 'medium', 'low', 'info'] as const).filter((s) => open[s] > 0);
  const worst = present[0];
  if (!worst) return makeBadge({ label: 'findings', message: 'none open', color: COLOURS.clean, style: 'flat' });
  const message = present.slice(0, 2).map((s) => `${open[s]} ${s}`).join(', ') + (present.length > 2 ? ', …' : '');
  return makeBadge({ label: 'findings', message, color: COLOURS[worst], style: 'flat' });
}

export function gateBadge(gate: Gate['status'] | null): string {
  const [message, color] = gate === 'pass' ? ['passing', COLOURS.clean]
    : gate === 'warn' ? ['warning', COLOURS.medium]
    : gate === 'fail' ? ['failing', COLOURS.critical]
    : ['not scanned', COLOURS.unknown];
  return makeBadge({ label: 'gate', message, color, style: 'flat' });
}
