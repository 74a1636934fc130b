import { useState } from 'react';
import { messageOf } from '../../api/client';
import { ConfirmButton } from '../../components/ConfirmButton';
import { Pagination } from '../../components/Pagination';
import { RepoTable } from '../../components/RepoTable';
import { SearchInput } from '../../components/SearchInput';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { pageParam, useSearchState } from '../../lib/use-search-state';
import { useRemoveRepo } from '../repos/api';
import { useOrgRepos } from './api';
import { AddRepoForm } from './AddRepoForm';

export function RepoList({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const [query, setQuery] = useSearchState();
  const q = query.get('q') ?? '';
  const page = pageParam(query);
  const [adding, setAdding] = useState(false);
  const repos = useOrgRepos(orgId, { q, page });
  const remove = useRemoveRepo(orgId);

  return (
    <section className="section" aria-label="Repositories">
      <div className="toolbar">
        <SearchInput label="Search repositories" placeholder="Search repositories by name" value={q} onChange={(value) => setQuery({ q: value, page: null })} />
        {canManage && !adding && <button type="button" className="button button-primary" onClick={() => setAdding(true)}>Add repository</button>}
      </div>
      {adding && <AddRepoForm orgId={orgId} onCancel={() => setAdding(false)} />}
      {remove.isError && <div className="notice notice-error" role="alert">The repository was not removed: {messageOf(remove.error)}</div>}
      <Loaded query={repos} skeleton={<TableSkeleton label="Loading repositories…" />}>
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
                <ConfirmButton label="Remove" confirmLabel={`Remove ${row.repo.name}`} onConfirm={() => remove.mutateAsync(row.repo.id)} />
              ) : undefined}
            />
            <Pagination info={info} label="Repository" onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })} />
          </>
        )}
      </Loaded>
    </section>
  );
}
