import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Loaded } from '../../components/States';
import { useRepoMetrics, type MetricsPoint } from './api';
import { ChartTable, Figure } from './ChartTable';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const DAYS = 90;

/** A repository's open and past-due findings per day over the last 90 days, from its default branch's daily snapshots. */
export function RepoTrend({ repoId }: { repoId: string }) {
  const series = useRepoMetrics(repoId, DAYS);
  return (
    <Loaded query={series} skeleton={<p className="muted">Loading the trend…</p>}>
      {(data) => <Trend points={data.points} />}
    </Loaded>
  );
}

function Trend({ points: series }: { points: MetricsPoint[] }) {
  const points = series.map((p) => ({ date: p.date, open: SEVERITIES.reduce((sum, s) => sum + p.open[s], 0), breached: p.breached }));
  if (!points.some((p) => p.open > 0 || p.breached > 0)) {
    // Also what a repository first scanned today shows; not "clean": an SBOM-only repository has no findings either.
    return <p className="muted chart-empty">Nothing to chart: no day of the last {DAYS} ended with a finding open on the default branch (a day is counted once it has ended, UTC).</p>;
  }
  const first = points[0]!;
  const last = points.at(-1)!;
  return (
    <Figure
      label={`Open findings per day over the last ${points.length} days: ${first.open} on ${first.date}, ${last.open} on ${last.date}.`}
      table={<ChartTable caption="Open and breached findings per day" columns={['Day', 'Open', 'Breached']} rows={points.map((p) => [p.date, p.open, p.breached])} />}
    >
      <ResponsiveContainer width="100%" height={160}>
        <AreaChart data={points}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="date" minTickGap={24} />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Area type="monotone" dataKey="open" name="Open" stroke="#2563eb" fill="#bfdbfe" isAnimationActive={false} />
          <Area type="monotone" dataKey="breached" name="Past due" stroke="#dc2626" fill="#fecaca" isAnimationActive={false} />
        </AreaChart>
      </ResponsiveContainer>
    </Figure>
  );
}
