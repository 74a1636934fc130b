import { formatNumber } from '../../lib/format';
import type { RepoOverview } from './overview';
import { totals } from './overview';

/** Four numbers a security lead looks for first. */
export function SummaryCards({ repos }: { repos: RepoOverview[] }) {
  const sum = totals(repos);
  const scanned = repos.filter((r) => r.status.state !== 'never_scanned').length;
  const failed = repos.filter((r) => r.status.state === 'failed').length;
  const affected = (key: 'critical' | 'high') => repos.filter((r) => r.counts[key] > 0).length;
  return (
    <section className="stats" aria-label="Summary">
      <Stat label="Critical open" value={sum.critical} tone={sum.critical ? 'critical' : undefined} note={`in ${affected('critical')} of ${repos.length} repositories`} />
      <Stat label="High open" value={sum.high} tone={sum.high ? 'high' : undefined} note={`in ${affected('high')} of ${repos.length} repositories`} />
      <Stat label="Medium and low open" value={sum.medium + sum.low} note={`${formatNumber(sum.info)} informational`} />
      <Stat label="Repositories scanned" value={scanned} note={failed ? `${failed} with a failed last upload` : `of ${repos.length}`} tone={failed ? 'failed' : undefined} />
    </section>
  );
}

function Stat({ label, value, note, tone }: { label: string; value: number; note: string; tone?: string }) {
  return (
    <div className={`stat${tone ? ` stat-${tone}` : ''}`}>
      <div className="stat-label">{label}</div>
      <div className="stat-value">{formatNumber(value)}</div>
      <div className="stat-note">{note}</div>
    </div>
  );
}
