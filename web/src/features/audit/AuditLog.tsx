import type { UseQueryResult } from '@tanstack/react-query';
import type { PageInfo } from '../../api/pagination';
import type { AuditFilters } from '../../api/query-keys';
import type { AuditEvent } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Pagination } from '../../components/Pagination';
import { SearchInput } from '../../components/SearchInput';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { formatDateTime } from '../../lib/format';
import { pageParam, useSearchState } from '../../lib/use-search-state';

/** The actions Scanyard records, for the filter's suggestions (the filter takes any exact name). */
const KNOWN_ACTIONS = [
  'signed_in', 'dev_login', 'org.created', 'org.updated', 'org.deleted', 'member.added', 'member.role_changed',
  'member.removed', 'team.created', 'team.updated', 'team.deleted', 'repo.created', 'repo.deleted',
  'analysis.deleted', 'api_key.created', 'api_key.revoked',
];

/** The filters of an audit log, from the URL (`?action=member.added&actor=alice&page=2`). */
export function useAuditFilters(): [AuditFilters, (changes: Record<string, string | number | null>, options?: { push?: boolean }) => void] {
  const [query, setQuery] = useSearchState();
  return [{ page: pageParam(query), action: query.get('action') ?? '', actor: query.get('actor') ?? '' }, setQuery];
}

const COLUMNS: Column<AuditEvent>[] = [
  { id: 'when', header: 'When', rowHeader: true, cell: (e) => <><Time iso={e.created_at} /><span className="cell-sub">{formatDateTime(e.created_at)}</span></> },
  { id: 'action', header: 'Action', cell: (e) => <code className="audit-action">{e.action}</code> },
  { id: 'actor', header: 'Person', cell: (e) => (e.actor?.login ? `@${e.actor.login}` : <span className="muted">{e.actor ? 'a deleted user' : 'Scanyard'}</span>) },
  { id: 'target', header: 'Target', cell: (e) => <Target event={e} /> },
  { id: 'ip', header: 'IP address', className: 'mono', cell: (e) => e.ip ?? <span className="muted">—</span> },
];

function Target({ event }: { event: AuditEvent }) {
  if (!event.target) return <span className="muted">—</span>;
  const name = typeof event.details?.name === 'string' ? event.details.name : typeof event.details?.login === 'string' ? `@${event.details.login}` : null;
  return (
    <span className="stack">
      <span>{event.target.type.replace('_', ' ')}{name && <> <strong>{name}</strong></>}</span>
      {event.details && <span className="cell-sub audit-details">{describeDetails(event.details)}</span>}
    </span>
  );
}

function describeDetails(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([key]) => key !== 'name' && key !== 'login')
    .map(([key, value]) => `${key.replace('_', ' ')}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

/** Who did what, newest first, with filters by action and person kept in the URL. */
export function AuditLog({ log, filters, setFilters, scope }: {
  log: Pick<UseQueryResult<{ rows: AuditEvent[]; info: PageInfo }>, 'data' | 'error' | 'refetch'>;
  filters: AuditFilters;
  setFilters: (changes: Record<string, string | number | null>, options?: { push?: boolean }) => void;
  scope: string;
}) {
  const filtered = Boolean(filters.action || filters.actor);
  return (
    <section className="section" aria-label="Audit log">
      <div className="toolbar filters" role="group" aria-label="Filter the audit log">
        <SearchInput label="Person (login)" placeholder="Person: login or user id" value={filters.actor} onChange={(value) => setFilters({ actor: value, page: null })} />
        <SearchInput label="Action" placeholder="Action, e.g. member.added" value={filters.action} onChange={(value) => setFilters({ action: value, page: null })} suggestions="audit-actions" />
        <datalist id="audit-actions">
          {KNOWN_ACTIONS.map((a) => <option key={a} value={a} />)}
        </datalist>
        {filtered && (
          <button type="button" className="button button-quiet button-small" onClick={() => setFilters({ action: null, actor: null, page: null })}>
            Clear filters
          </button>
        )}
      </div>
      <Loaded query={log} skeleton={<TableSkeleton label="Loading the audit log…" />}>
        {({ rows, info }) => rows.length === 0 ? (
          <EmptyState title={filtered ? 'No events match these filters' : 'Nothing recorded yet'}>
            {!filtered && <p>Sign-ins and changes to {scope} appear here as they happen.</p>}
          </EmptyState>
        ) : (
          <>
            <DataTable caption="Audit log, newest first" className="audit" columns={COLUMNS} rows={rows} rowKey={(e) => e.id} />
            <Pagination info={info} label="Audit log" onPage={(p) => setFilters({ page: p === 1 ? null : p }, { push: true })} />
          </>
        )}
      </Loaded>
    </section>
  );
}
