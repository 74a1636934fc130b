import type { Component } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Pagination } from '../../components/Pagination';
import { SearchInput } from '../../components/SearchInput';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { pageParam, useSearchState } from '../../lib/use-search-state';
import { useComponents } from './api';

const none = <span className="muted">—</span>;

const COLUMNS: Column<Component>[] = [
  { id: 'name', header: 'Component', rowHeader: true, cell: (c) => c.name },
  { id: 'version', header: 'Version', className: 'mono', cell: (c) => c.version || none },
  { id: 'type', header: 'Type', cell: (c) => c.type ?? none },
  { id: 'licenses', header: 'Licenses', cell: (c) => (c.licenses.length ? c.licenses.join(', ') : none) },
  { id: 'purl', header: 'Package URL', className: 'mono purl', cell: (c) => c.purl ?? none },
];

export function ComponentsTable({ repoId, gitRef }: { repoId: string; gitRef: string }) {
  const [query, setQuery] = useSearchState();
  const q = query.get('q') ?? '';
  const page = pageParam(query);
  const components = useComponents(repoId, { q, page, ref: gitRef });

  return (
    <section className="section" aria-label="Components">
      <div className="toolbar">
        <SearchInput label="Search components" placeholder="Search name or purl" value={q} onChange={(value) => setQuery({ q: value, page: null })} />
      </div>
      <Loaded query={components} skeleton={<TableSkeleton label="Loading components…" />}>
        {({ rows, info }) => rows.length === 0 ? (
          <EmptyState title={q ? `No component matches “${q}”` : 'No components yet'}>
            {!q && <p>Components come from SBOM uploads (CycloneDX or SPDX).</p>}
          </EmptyState>
        ) : (
          <>
            <DataTable caption="Components" className="components" columns={COLUMNS} rows={rows} rowKey={(c) => c.id} />
            <Pagination info={info} label="Components" onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })} />
          </>
        )}
      </Loaded>
    </section>
  );
}
