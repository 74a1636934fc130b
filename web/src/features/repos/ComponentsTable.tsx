import { Link } from 'react-router';
import type { Component, Finding } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Pagination } from '../../components/Pagination';
import { SearchInput } from '../../components/SearchInput';
import { SeverityBadge } from '../../components/SeverityBadge';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { SEVERITIES } from '../../lib/severity';
import { pageParam, useSearchState } from '../../lib/use-search-state';
import { useComponentAdvisories, useComponents } from './api';

const none = <span className="muted">—</span>;

/** The advisories a component is affected by, most severe first, each linking to its page. */
function Advisories({ findings }: { findings: Finding[] }) {
  const sorted = [...findings].sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
  return (
    <ul className="advisory-list">
      {sorted.map((f) => (
        <li key={f.id}>
          <SeverityBadge severity={f.severity} /> <Link to={`/advisories/${encodeURIComponent(f.rule_id)}`} className="mono">{f.rule_id}</Link>
          {f.fixed_versions && f.fixed_versions.length > 0 && <span className="muted"> fixed in {f.fixed_versions.join(', ')}</span>}
        </li>
      ))}
    </ul>
  );
}

function columns(advisories: Map<string, Finding[]> | undefined): Column<Component>[] {
  const of = (c: Component) => (c.purl ? advisories?.get(c.purl) : undefined) ?? [];
  return [
    {
      id: 'name', header: 'Component', rowHeader: true,
      cell: (c) => <>{c.name}{of(c).length > 0 && <> <span className="tag tag-vulnerable">Vulnerable</span></>}</>,
    },
    { id: 'version', header: 'Version', className: 'mono', cell: (c) => c.version || none },
    { id: 'advisories', header: 'Advisories', cell: (c) => (of(c).length > 0 ? <Advisories findings={of(c)} /> : none) },
    { id: 'type', header: 'Type', cell: (c) => c.type ?? none },
    { id: 'licenses', header: 'Licenses', cell: (c) => (c.licenses.length ? c.licenses.join(', ') : none) },
    { id: 'purl', header: 'Package URL', className: 'mono purl', cell: (c) => c.purl ?? none },
  ];
}

export function ComponentsTable({ repoId, gitRef }: { repoId: string; gitRef: string }) {
  const [query, setQuery] = useSearchState();
  const q = query.get('q') ?? '';
  const page = pageParam(query);
  const components = useComponents(repoId, { q, page, ref: gitRef });
  const advisories = useComponentAdvisories(repoId, gitRef);

  return (
    <section className="section" aria-label="Components">
      <div className="toolbar">
        <SearchInput label="Search components" placeholder="Search name or purl" value={q} onChange={(value) => setQuery({ q: value, page: null })} />
        {advisories.data && advisories.data.size > 0 && (
          <p className="muted">{advisories.data.size.toLocaleString()} vulnerable {advisories.data.size === 1 ? 'package' : 'packages'} on this ref</p>
        )}
      </div>
      <Loaded query={components} skeleton={<TableSkeleton label="Loading components…" />}>
        {({ rows, info }) => rows.length === 0 ? (
          <EmptyState title={q ? `No component matches “${q}”` : 'No components yet'}>
            {!q && <p>Components come from SBOM uploads (CycloneDX or SPDX).</p>}
          </EmptyState>
        ) : (
          <>
            <DataTable caption="Components" className="components" columns={columns(advisories.data)} rows={rows} rowKey={(c) => c.id} />
            <Pagination info={info} label="Components" onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })} />
          </>
        )}
      </Loaded>
    </section>
  );
}
