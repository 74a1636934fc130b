import type { ResponseBody } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { useAdvisorySources } from './api';

type Source = ResponseBody<'/api/v1/advisories/sources', 'get'>[number];

const COLUMNS: Column<Source>[] = [
  { id: 'url', header: 'Source', rowHeader: true, className: 'mono purl', cell: (s) => s.url },
  {
    id: 'state', header: 'State',
    cell: (s) => s.last_error !== null
      ? <span className="sync-failed">Failed: {s.last_error}</span>
      : s.synced_at !== null ? 'Synced' : <span className="muted">Not synced yet</span>,
  },
  { id: 'synced', header: 'Last imported', cell: (s) => <Time iso={s.synced_at} fallback="never" /> },
  { id: 'checked', header: 'Last checked', cell: (s) => <Time iso={s.checked_at} fallback="never" /> },
  {
    id: 'counts', header: 'Last import',
    cell: (s) => s.synced_at === null ? <span className="muted">—</span> : `${s.counts.added.toLocaleString()} added, ${s.counts.updated.toLocaleString()} updated, ${s.counts.withdrawn.toLocaleString()} withdrawn, ${s.counts.rejected.toLocaleString()} rejected`,
  },
];

/** The advisory sync sources (SERVICE_ADVISORY_SOURCES) and how each last went, for site administrators. */
export function AdvisorySources() {
  const sources = useAdvisorySources();
  return (
    <section className="section" aria-labelledby="sources-title">
      <h2 id="sources-title" className="card-title">Advisory sources</h2>
      <Loaded query={sources} skeleton={<TableSkeleton rows={2} label="Loading advisory sources…" />}>
        {(rows) => rows.length === 0 ? (
          <EmptyState title="No advisory sources configured">
            <p>Set SERVICE_ADVISORY_SOURCES to OSV zip URLs to sync them, or import advisories with <code>scanyard advisories import</code>.</p>
          </EmptyState>
        ) : <DataTable caption="Advisory sources" columns={COLUMNS} rows={rows} rowKey={(s) => s.url} />}
      </Loaded>
    </section>
  );
}
