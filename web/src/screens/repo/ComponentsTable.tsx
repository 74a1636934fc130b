import { api, call } from '../../api/client';
import { pageInfo } from '../../api/pagination';
import { Pagination } from '../../components/Pagination';
import { SearchInput } from '../../components/SearchInput';
import { EmptyState, Loaded } from '../../components/States';
import { useResource } from '../../lib/useResource';
import { useQueryState } from '../../router';

const PER_PAGE = 50;

export function ComponentsTable({ repoId, version }: { repoId: string; version: string }) {
  const [query, setQuery] = useQueryState();
  const q = query.get('q') ?? '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const components = useResource(async (signal) => {
    const { data, response } = await call(api.GET('/api/v1/repos/{id}/components', {
      params: { path: { id: repoId }, query: { page, per_page: PER_PAGE, ...(q ? { q } : {}) } },
      signal,
    }));
    return { rows: data, info: pageInfo(response, PER_PAGE) };
  }, `${repoId}|${q}|${page}|${version}`);

  return (
    <section className="section" aria-label="Components">
      <div className="toolbar">
        <SearchInput label="Search components" placeholder="Search name or purl" value={q} onChange={(value) => setQuery({ q: value, page: null })} />
      </div>
      <Loaded resource={components} label="Loading components…">
        {({ rows, info }) => rows.length === 0 ? (
          <EmptyState title={q ? `No component matches “${q}”` : 'No components yet'}>
            {!q && <p>Components come from SBOM uploads (CycloneDX or SPDX).</p>}
          </EmptyState>
        ) : (
          <>
            <div className="table-wrap">
              <table className="table table-stack components">
                <caption className="visually-hidden">Components</caption>
                <thead>
                  <tr>
                    <th scope="col">Component</th>
                    <th scope="col">Version</th>
                    <th scope="col">Type</th>
                    <th scope="col">Licenses</th>
                    <th scope="col">Package URL</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((c) => (
                    <tr key={c.id}>
                      <th scope="row" className="cell-title">{c.name}</th>
                      <td data-label="Version" className="mono">{c.version || <span className="muted">—</span>}</td>
                      <td data-label="Type">{c.type ?? <span className="muted">—</span>}</td>
                      <td data-label="Licenses">{c.licenses.length ? c.licenses.join(', ') : <span className="muted">—</span>}</td>
                      <td data-label="Package URL" className="mono purl">{c.purl ?? <span className="muted">—</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pagination info={info} label="Components" onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })} />
          </>
        )}
      </Loaded>
    </section>
  );
}
