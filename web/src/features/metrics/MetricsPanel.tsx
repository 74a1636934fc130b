import { Area, AreaChart, Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Link } from 'react-router';
import { Card } from '../../components/Card';
import { Loaded } from '../../components/States';
import { useSearchState } from '../../lib/use-search-state';
import { useTeams } from '../orgs/api';
import { useOrgMetrics, useOrgSummary, type MetricsPoint, type MetricsSummary } from './api';
import { ChartTable, Figure } from './ChartTable';

const LOADING = <p className="muted">Loading the figures…</p>;
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const COLOURS: Record<(typeof SEVERITIES)[number], string> = { critical: '#9f1239', high: '#dc2626', medium: '#d97706', low: '#2563eb', info: '#64748b' };

/** An organisation's figures over time: are we getting better, and who is late. */
export function MetricsPanel({ orgId }: { orgId: string }) {
  const [query, setQuery] = useSearchState();
  const team = query.get('team') ?? '';
  const teams = useTeams(orgId);
  const daily = useOrgMetrics(orgId, 'day', team, 180);
  const weekly = useOrgMetrics(orgId, 'week', team, 84);
  const summary = useOrgSummary(orgId, team);
  return (
    <div className="metrics">
      <div className="field-inline">
        <label htmlFor="metrics-team">Team</label>
        <select id="metrics-team" value={team} onChange={(e) => setQuery({ team: e.target.value || null })}>
          <option value="">Whole organization</option>
          {(teams.data?.teams ?? []).map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
        </select>
      </div>
      <div className="overview-grid">
        <Card id="metrics-open" title="Open findings by severity" aside={<span className="muted">last 180 days</span>}>
          <Loaded query={daily} skeleton={LOADING}>{(data) => <OpenBySeverity points={data.points} />}</Loaded>
        </Card>
        <Card id="metrics-flow" title="New and fixed per week" aside={<span className="muted">last 12 weeks</span>}>
          <Loaded query={weekly} skeleton={LOADING}>{(data) => <NewVsFixed points={data.points} />}</Loaded>
        </Card>
        <Loaded query={summary} skeleton={LOADING}>{(data) => <SummaryCards summary={data} orgId={orgId} />}</Loaded>
      </div>
    </div>
  );
}

function OpenBySeverity({ points }: { points: MetricsPoint[] }) {
  const rows = points.map((p) => ({ date: p.date, ...p.open }));
  const last = points.at(-1);
  const total = last ? SEVERITIES.reduce((sum, s) => sum + last.open[s], 0) : 0;
  return (
    <Figure
      label={`Open findings by severity per day from ${points[0]?.date ?? '—'} to ${last?.date ?? '—'}; ${total} open on the last day.`}
      table={<ChartTable caption="Open findings by severity per day" columns={['Day', ...SEVERITIES]} rows={points.map((p) => [p.date, ...SEVERITIES.map((s) => p.open[s])])} />}
    >
      <ResponsiveContainer width="100%" height={220}>
        <AreaChart data={rows}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="date" minTickGap={24} />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Legend />
          {SEVERITIES.map((s) => <Area key={s} type="monotone" dataKey={s} stackId="open" stroke={COLOURS[s]} fill={COLOURS[s]} isAnimationActive={false} />)}
        </AreaChart>
      </ResponsiveContainer>
    </Figure>
  );
}

function NewVsFixed({ points }: { points: MetricsPoint[] }) {
  return (
    <Figure
      label={`New and fixed findings per week: ${points.reduce((s, p) => s + p.new, 0)} new and ${points.reduce((s, p) => s + p.fixed, 0)} fixed over ${points.length} weeks.`}
      table={<ChartTable caption="New and fixed findings per week" columns={['Week of', 'New', 'Fixed', 'Reopened', 'Dismissed']} rows={points.map((p) => [p.date, p.new, p.fixed, p.reopened, p.dismissed])} />}
    >
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={points}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="date" />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Legend />
          <Bar dataKey="new" name="New" fill="#dc2626" isAnimationActive={false} />
          <Bar dataKey="fixed" name="Fixed" fill="#16a34a" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </Figure>
  );
}

function SummaryCards({ summary, orgId }: { summary: MetricsSummary; orgId: string }) {
  const mttr = SEVERITIES.map((s) => ({ severity: s, median: summary.mttr[s].median_days, p90: summary.mttr[s].p90_days, fixed: summary.mttr[s].fixed }));
  const compliance = summary.sla_compliance;
  return (
    <>
      <Card id="metrics-mttr" title="Mean time to remediate" aside={<span className="muted">fixed in the last 90 days</span>}>
        <Figure
          label={`Median days from first seen to fixed by severity: ${mttr.map((m) => `${m.severity} ${m.median ?? 'none'}`).join(', ')}.`}
          table={<ChartTable caption="Days to remediate by severity" columns={['Severity', 'Median days', '90th percentile days', 'Fixed']} rows={mttr.map((m) => [m.severity, m.median, m.p90, m.fixed])} />}
        >
          <ResponsiveContainer width="100%" height={200}>
            <BarChart data={mttr}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="severity" />
              <YAxis />
              <Tooltip />
              <Legend />
              <Bar dataKey="median" name="Median days" fill="#2563eb" isAnimationActive={false} />
              <Bar dataKey="p90" name="90th percentile" fill="#93c5fd" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </Figure>
      </Card>
      <Card id="metrics-sla" title="SLA compliance" aside={<span className="big-number">{compliance.ratio === null ? '—' : `${Math.round(compliance.ratio * 100)}%`}</span>}>
        <Figure
          label={`${compliance.fixed_within_sla} of ${compliance.fixed} findings fixed within their SLA in the last 90 days.`}
          table={<ChartTable caption="SLA compliance" columns={['', 'Findings']} rows={[['Fixed within SLA', compliance.fixed_within_sla], ['Fixed late', compliance.fixed - compliance.fixed_within_sla]]} />}
        >
          <ResponsiveContainer width="100%" height={120}>
            <BarChart data={[{ name: 'Fixed', within: compliance.fixed_within_sla, late: compliance.fixed - compliance.fixed_within_sla }]} layout="vertical">
              <XAxis type="number" allowDecimals={false} />
              <YAxis type="category" dataKey="name" hide />
              <Tooltip />
              <Legend />
              <Bar dataKey="within" name="Within SLA" stackId="sla" fill="#16a34a" isAnimationActive={false} />
              <Bar dataKey="late" name="Late" stackId="sla" fill="#dc2626" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </Figure>
      </Card>
      <Card id="metrics-breached" title="Breached now" aside={<span className="big-number">{summary.breached_now}</span>}>
        <BreachedBars
          label={`${summary.breached_now} open findings are past their due date; by team: ${summary.breached_by_team.map((t) => `${t.name} ${t.breached}`).join(', ') || 'none'}.`}
          caption="Breached findings by team" column="Team" rows={summary.breached_by_team}
        />
        <BreachedBars
          label={`Repositories with the most breached findings: ${summary.breached_by_repository.slice(0, 3).map((r) => `${r.name} ${r.breached}`).join(', ') || 'none'}.`}
          caption="Breached findings by repository (the 25 with the most)" column="Repository" rows={summary.breached_by_repository}
        />
        {summary.oldest_breached.length > 0 && (
          <ol className="breached-list" aria-label="Longest past due">
            {summary.oldest_breached.map((f) => (
              <li key={f.id}><Link to={`/findings/${f.id}`}>{f.rule_id}</Link> <span className="muted">in {f.repository_name}, {f.severity}, due {f.due_at.slice(0, 10)}</span></li>
            ))}
          </ol>
        )}
        <p className="hint">A repository two teams hold counts for both. <Link to={`/orgs/${orgId}?tab=policy`}>The SLA is the policy's maximum age.</Link></p>
      </Card>
    </>
  );
}

/** Breached findings per team or repository, the most first (ten bars; the table has them all). */
function BreachedBars({ label, caption, column, rows }: { label: string; caption: string; column: string; rows: { name: string; breached: number }[] }) {
  return (
    <Figure label={label} table={<ChartTable caption={caption} columns={[column, 'Breached']} rows={rows.map((r) => [r.name, r.breached])} />}>
      {rows.length === 0 ? <p className="muted">None past due.</p> : (
        <ResponsiveContainer width="100%" height={Math.max(80, 28 * Math.min(10, rows.length))}>
          <BarChart data={rows.slice(0, 10)} layout="vertical">
            <XAxis type="number" allowDecimals={false} />
            <YAxis type="category" dataKey="name" width={140} />
            <Tooltip />
            <Bar dataKey="breached" name="Breached" fill="#dc2626" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      )}
    </Figure>
  );
}
