import { messageOf } from '../../api/client';
import type { ApiKey, CurrentUser } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ACTIONS_HEADER, DataTable, type Column } from '../../components/DataTable';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { formatDate } from '../../lib/format';
import { useApiKeys, useRevokeKey } from './api';

const SCOPE_LABEL = { read: 'Read', upload: 'Upload', write: 'Write' } as const;

export function KeyList({ orgs }: { orgs: CurrentUser['orgs'] }) {
  const keys = useApiKeys();
  const revoke = useRevokeKey();
  const orgName = new Map(orgs.map((o) => [o.id, o.name]));

  const columns: Column<ApiKey>[] = [
    { id: 'name', header: 'Name', rowHeader: true, cell: (key) => <>{key.name}<span className="cell-sub mono">{key.prefix}…</span></> },
    { id: 'scope', header: 'Scope', cell: (key) => key.scopes.map((s) => <span key={s} className="tag">{SCOPE_LABEL[s]}</span>) },
    { id: 'orgs', header: 'Organizations', cell: (key) => (key.org_ids ? key.org_ids.map((id) => orgName.get(id) ?? 'an organization you left').join(', ') : 'All') },
    { id: 'created', header: 'Created', cell: (key) => <Time iso={key.created_at} /> },
    {
      id: 'expires', header: 'Expires',
      cell: (key) => {
        if (!key.expires_at) return 'Never';
        const expired = new Date(key.expires_at).getTime() < Date.now();
        return <span className={expired ? 'text-danger' : undefined}>{expired ? 'Expired ' : ''}{formatDate(key.expires_at)}</span>;
      },
    },
    { id: 'used', header: 'Last used', cell: (key) => <Time iso={key.last_used_at} fallback="Never" /> },
    {
      id: 'actions', header: ACTIONS_HEADER, className: 'cell-actions',
      cell: (key) => <ConfirmButton label="Revoke" confirmLabel={`Revoke ${key.name}`} onConfirm={() => revoke.mutateAsync(key.id)} />,
    },
  ];

  return (
    <>
      {revoke.isError && <div className="notice notice-error" role="alert">The key was not revoked: {messageOf(revoke.error)}</div>}
      <Loaded query={keys} skeleton={<TableSkeleton label="Loading your keys…" rows={2} />}>
        {(list) => list.length === 0 ? (
          <EmptyState title="No API keys">
            <p>Create one for each pipeline that uploads scan results, so each can be revoked on its own.</p>
          </EmptyState>
        ) : (
          <DataTable caption="Your API keys" className="keys" columns={columns} rows={list} rowKey={(key) => key.id} />
        )}
      </Loaded>
    </>
  );
}
