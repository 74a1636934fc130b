import { useState } from 'react';
import { api, call, messageOf } from '../../api/client';
import { pageInfo } from '../../api/pagination';
import { ConfirmButton } from '../../components/ConfirmButton';
import { Pagination } from '../../components/Pagination';
import { RepoTable } from '../../components/RepoTable';
import { SearchInput } from '../../components/SearchInput';
import { EmptyState, Loaded } from '../../components/States';
import { useResource } from '../../lib/useResource';
import { useQueryState } from '../../router';
import { countsOf } from '../dashboard/overview';
import { AddRepoForm } from './AddRepoForm';

const PER_PAGE = 25;

export function RepoList({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const [query, setQuery] = useQueryState();
  const q = query.get('q') ?? '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<string>();
  const repos = useResource(async (signal) => {
    const { data, response } = await call(api.GET('/api/v1/orgs/{org_id}/repos', {
      params: { path: { org_id: orgId }, query: { page, per_page: PER_PAGE, ...(q ? { q } : {}) } },
      signal,
    }));
    const rows = data.map((repo) => ({ repo, status: repo.scan, counts: countsOf(repo.scan) }));
    return { rows, info: pageInfo(response, PER_PAGE) };
  }, `${orgId}|${q}|${page}`);

  const remove = async (repoId: string) => {
    setError(undefined);
    try {
      await call(api.DELETE('/api/v1/repos/{id}', { params: { path: { id: repoId } } }));
      repos.reload();
    } catch (caught) {
      setError(`The repository was not removed: ${messageOf(caught)}`);
    }
  };

  return (
    <section className="section" aria-label="Repositories">
      <div className="toolbar">
        <SearchInput label="Search repositories" placeholder="Search repositories by name" value={q} onChange={(value) => setQuery({ q: value, page: null })} />
        {canManage && !adding && <button type="button" className="button button-primary" onClick={() => setAdding(true)}>Add repository</button>}
      </div>
      {adding && <AddRepoForm orgId={orgId} onCancel={() => setAdding(false)} />}
      {error && <div className="notice notice-error" role="alert">{error}</div>}
      <Loaded resource={repos} label="Loading repositories…">
        {({ rows, info }) => rows.length === 0 ? (
          <EmptyState title={q ? `No repository matches “${q}”` : 'No repositories yet'}>
            {!q && <p>{canManage ? 'Add the repositories whose scan results this organization keeps.' : 'An owner of this organization can add repositories.'}</p>}
          </EmptyState>
        ) : (
          <>
            <RepoTable
              rows={rows}
              caption="Repositories of this organization"
              actions={canManage ? (row) => (
                <ConfirmButton label="Remove" confirmLabel={`Remove ${row.repo.name}`} onConfirm={() => remove(row.repo.id)} />
              ) : undefined}
            />
            <Pagination info={info} label="Repository" onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })} />
          </>
        )}
      </Loaded>
    </section>
  );
}
