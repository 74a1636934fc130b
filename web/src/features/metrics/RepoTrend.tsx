import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ReactNode } from 'react';
import { useRepoMetrics } from './api';
import { ChartTable, Figure } from './ChartTable';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/**
 * A repository's open findings per day from its daily snapshots (the last 90 days); `fallback` while
 * it has none yet (the snapshot of a day is written after the day ends).
 */
export function RepoTrend({ repoId, fallback }: { repoId: string; fallback: ReactNode }) {
  const series = useRepoMetrics(repoId, 90);
  const points = (series.data?.points ?? []).map((p) => ({ date: p.date, open: SEVERITIES.reduce((sum, s) => sum + p.open[s], 0), breached: p.breached }));
  if (!points.some((p) => p.open > 0 || p.breached > 0)) return <>{fallback}</>;
  const last = points.at(-1)!;
  return (
    <Figure
      label={`Open findings per day over the last ${points.length} days: ${points[0]!.open} on ${points[0]!.date}, ${last.open} on ${last.date}.`}
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
