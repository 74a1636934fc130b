import { useState } from 'react';
import { api, call, messageOf } from '../../api/client';
import type { ApiKey, CurrentUser } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { formatDate } from '../../lib/format';
import type { Resource } from '../../lib/useResource';

const SCOPE_LABEL = { read: 'Read', upload: 'Upload', write: 'Write' } as const;

export function KeyList({ keys, orgs }: { keys: Resource<ApiKey[]>; orgs: CurrentUser['orgs'] }) {
  const [error, setError] = useState<string>();
  const orgName = new Map(orgs.map((o) => [o.id, o.name]));

  const revoke = async (key: ApiKey) => {
    setError(undefined);
    try {
      await call(api.DELETE('/api/v1/apikeys/{id}', { params: { path: { id: key.id } } }));
      keys.reload();
    } catch (caught) {
      setError(`The key ${key.name} was not revoked: ${messageOf(caught)}`);
    }
  };

  return (
    <>
      {error && <div className="notice notice-error" role="alert">{error}</div>}
      <Loaded resource={keys} label="Loading your keys…">
        {(list) => list.length === 0 ? (
          <EmptyState title="No API keys">
            <p>Create one for each pipeline that uploads scan results, so each can be revoked on its own.</p>
          </EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="table table-stack keys">
              <caption className="visually-hidden">Your API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Organizations</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col"><span className="visually-hidden">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {list.map((key) => {
                  const expired = key.expires_at !== null && new Date(key.expires_at).getTime() < Date.now();
                  return (
                    <tr key={key.id}>
                      <th scope="row" className="cell-title">
                        {key.name}
                        <span className="cell-sub mono">{key.prefix}…</span>
                      </th>
                      <td data-label="Scope">{key.scopes.map((s) => <span key={s} className="tag">{SCOPE_LABEL[s]}</span>)}</td>
                      <td data-label="Organizations">{key.org_ids ? key.org_ids.map((id) => orgName.get(id) ?? 'an organization you left').join(', ') : 'All'}</td>
                      <td data-label="Created"><Time iso={key.created_at} /></td>
                      <td data-label="Expires">
                        {key.expires_at ? <span className={expired ? 'text-danger' : undefined}>{expired ? 'Expired ' : ''}{formatDate(key.expires_at)}</span> : 'Never'}
                      </td>
                      <td data-label="Last used"><Time iso={key.last_used_at} fallback="Never" /></td>
                      <td className="cell-actions">
                        <ConfirmButton label="Revoke" confirmLabel={`Revoke ${key.name}`} onConfirm={() => revoke(key)} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </>
  );
}
