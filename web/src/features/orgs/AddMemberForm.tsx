import { useState } from 'react';
import { messageOf } from '../../api/client';
import { Avatar } from '../../components/Avatar';
import { SearchInput } from '../../components/SearchInput';
import { Skeleton } from '../../components/Skeleton';
import { Loaded } from '../../components/States';
import { useSetMemberRole, useUserSearch } from './api';

/** Finds people who have signed in once (only they can be added) and adds one with a role. */
export function AddMemberForm({ orgId, onDone }: { orgId: string; onDone: () => void }) {
  const [q, setQ] = useState('');
  const [role, setRole] = useState<'member' | 'owner'>('member');
  const users = useUserSearch(q);
  const add = useSetMemberRole(orgId);

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
      {add.isError && <div className="notice notice-error" role="alert">{add.variables?.login} was not added: {messageOf(add.error)}</div>}
      {q && (
        <Loaded query={users} skeleton={<Skeleton className="skeleton-text skeleton-wide" />}>
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
                  <button
                    type="button"
                    className="button button-small"
                    disabled={add.isPending}
                    onClick={() => add.mutate({ userId: user.id, role, login: user.login }, { onSuccess: onDone })}
                  >
                    {add.isPending && add.variables.userId === user.id ? 'Adding…' : `Add as ${role}`}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </Loaded>
      )}
      <div className="form-actions">
        <button type="button" className="button" onClick={onDone}>Done</button>
      </div>
    </div>
  );
}
