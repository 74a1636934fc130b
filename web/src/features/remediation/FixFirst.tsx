import type { RemediationAction } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { SeverityBadge } from '../../components/SeverityBadge';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { useRemediation } from './api';

const none = <span className="muted">—</span>;

/** "upgrade qs 6.7.0 → 6.7.3", or what is known when no fixed version is. */
export function Upgrade({ action }: { action: RemediationAction }) {
  return (
    <>
      <strong>{action.package}</strong> <span className="mono">{action.from}</span> → {action.to ? <span className="mono">{action.to}</span> : <span className="muted">no fixed version known</span>}
    </>
  );
}

/** The direct dependencies to change in the manifest. */
export function Via({ action }: { action: RemediationAction }) {
  if (action.via.length === 0) return none;
  return <>{action.via.map((v, i) => <span key={`${v.name}@${v.version ?? ''}`}>{i > 0 && ', '}<span className="mono">{v.name}{v.version ? `@${v.version}` : ''}</span></span>)}</>;
}

const COLUMNS: Column<RemediationAction>[] = [
  { id: 'upgrade', header: 'Upgrade', rowHeader: true, cell: (a) => <Upgrade action={a} /> },
  {
    id: 'fixes', header: 'Fixes',
    cell: (a) => (
      <>
        {a.vulnerabilities.length > 0 ? a.vulnerabilities.join(', ') : none}
        {a.remaining.length > 0 && <div className="muted">still affected by {a.remaining.join(', ')}</div>}
      </>
    ),
  },
  { id: 'severity', header: 'Severity', cell: (a) => <SeverityBadge severity={a.severity} /> },
  { id: 'kev', header: 'KEV', cell: (a) => (a.kev > 0 ? <span className="tag tag-vulnerable">{a.kev} in KEV</span> : none) },
  { id: 'epss', header: 'EPSS', cell: (a) => (a.epss === null ? none : `${(a.epss * 100).toFixed(1)}%`) },
  { id: 'via', header: 'Pulled in by', cell: (a) => <Via action={a} /> },
];

/** The repository's "Fix first": the upgrade plan of the ref shown, most risk removed first. */
export function FixFirst({ repoId, gitRef }: { repoId: string; gitRef: string }) {
  const plan = useRemediation(repoId, gitRef);
  return (
    <section className="section" aria-label="Fix first">
      <p className="muted">
        Each upgrade goes to the smallest fixed version that no known advisory affects; "pulled in by" names the
        direct dependencies to change. Most risk removed first. <a href={`/api/v1/repos/${repoId}/remediation${gitRef ? `?ref=${encodeURIComponent(gitRef)}` : ''}`} download="remediation.json">JSON</a>
      </p>
      <Loaded query={plan} skeleton={<TableSkeleton label="Loading the plan…" />}>
        {(actions) => (actions.length === 0
          ? <EmptyState title="Nothing to upgrade">No open vulnerability names a package on this ref.</EmptyState>
          : <DataTable caption="Upgrade plan" columns={COLUMNS} rows={actions} rowKey={(a) => `${a.purl}@${a.from}`} />)}
      </Loaded>
    </section>
  );
}
