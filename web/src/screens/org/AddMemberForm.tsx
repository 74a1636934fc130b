import { useState } from 'react';
import { api, call, messageOf } from '../../api/client';
import type { UserSummary } from '../../api/types';
import { Avatar } from '../../components/Avatar';
import { SearchInput } from '../../components/SearchInput';
import { Loaded } from '../../components/States';
import { useResource } from '../../lib/useResource';

/** Finds people who have signed in once (only they can be added) and adds one with a role. */
export function AddMemberForm({ orgId, onDone, onCancel }: { orgId: string; onDone: () => void; onCancel: () => void }) {
  const [q, setQ] = useState('');
  const [role, setRole] = useState<'member' | 'owner'>('member');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const users = useResource(async (signal) => {
    if (!q) return [];
    return (await call(api.GET('/api/v1/users', { params: { query: { q } }, signal }))).data;
  }, q);

  const add = async (user: UserSummary) => {
    setBusy(user.id);
    setError(undefined);
    try {
      await call(api.PUT('/api/v1/orgs/{id}/members/{user_id}', { params: { path: { id: orgId, user_id: user.id } }, body: { role } }));
      onDone();
    } catch (caught) {
      setError(`${user.login} was not added: ${messageOf(caught)}`);
      setBusy(undefined);
    }
  };

  return (
    <div className="card form" role="group" aria-labelledby="add-member-title">
      <h2 id="add-member-title" className="card-title">Add a member</h2>
      <p className="hint">People appear here once they have signed in to Scanyard.</p>
      <div className="form-row">
        <SearchInput label="Find people by login or name" value={q} onChange={setQ} />
        <label className="inline-field">
          Role
          <select className="input input-compact" value={role} onChange={(e) => setRole(e.target.value as 'member' | 'owner')}>
            <option value="member">Member</option>
            <option value="owner">Owner</option>
          </select>
        </label>
      </div>
      {error && <div className="notice notice-error" role="alert">{error}</div>}
      {q && (
        <Loaded resource={users} label="Searching…">
          {(found) => found.length === 0 ? <p className="muted">Nobody matches “{q}”.</p> : (
            <ul className="pick-list">
              {found.map((user) => (
                <li key={user.id}>
                  <span className="person">
                    <Avatar url={user.avatar_url} login={user.login} />
                    <span>
                      <span className="person-name">{user.name || user.login}</span>
                      <span className="cell-sub">@{user.login}</span>
                    </span>
                  </span>
                  <button type="button" className="button button-small" disabled={busy !== undefined} onClick={() => void add(user)}>
                    {busy === user.id ? 'Adding…' : `Add as ${role}`}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </Loaded>
      )}
      <div className="form-actions">
        <button type="button" className="button" onClick={onCancel}>Done</button>
      </div>
    </div>
  );
}
