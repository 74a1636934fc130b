import { useState } from 'react';
import { api, call, messageOf } from '../../api/client';
import type { Member } from '../../api/types';
import { Avatar } from '../../components/Avatar';
import { ConfirmButton } from '../../components/ConfirmButton';
import { EmptyState, Loaded } from '../../components/States';
import { useResource } from '../../lib/useResource';
import { AddMemberForm } from './AddMemberForm';
import { loadMembers } from './members';

type Role = 'owner' | 'member';

export function MemberList({ orgId, canManage, currentUserId }: { orgId: string; canManage: boolean; currentUserId: string }) {
  const members = useResource((signal) => loadMembers(orgId, signal), orgId);
  const [error, setError] = useState<string>();
  const [adding, setAdding] = useState(false);

  const setRole = async (member: Member, role: Role) => {
    setError(undefined);
    try {
      await call(api.PUT('/api/v1/orgs/{id}/members/{user_id}', { params: { path: { id: orgId, user_id: member.user_id } }, body: { role } }));
      members.reload();
    } catch (caught) {
      setError(`The role of ${member.login} was not changed: ${messageOf(caught)}`);
    }
  };
  const remove = async (member: Member) => {
    setError(undefined);
    try {
      await call(api.DELETE('/api/v1/orgs/{id}/members/{user_id}', { params: { path: { id: orgId, user_id: member.user_id } } }));
      members.reload();
    } catch (caught) {
      setError(`${member.login} was not removed: ${messageOf(caught)}`);
    }
  };

  return (
    <section className="section" aria-label="Members">
      {canManage && (
        <div className="toolbar toolbar-end">
          {!adding && <button type="button" className="button button-primary" onClick={() => setAdding(true)}>Add member</button>}
        </div>
      )}
      {adding && <AddMemberForm orgId={orgId} onDone={() => { setAdding(false); members.reload(); }} onCancel={() => setAdding(false)} />}
      {error && <div className="notice notice-error" role="alert">{error}</div>}
      <Loaded resource={members} label="Loading members…">
        {(list) => list.length === 0 ? <EmptyState title="No members" /> : (
          <div className="table-wrap">
            <table className="table table-stack">
              <caption className="visually-hidden">Members of this organization</caption>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Role</th>
                  {canManage && <th scope="col"><span className="visually-hidden">Actions</span></th>}
                </tr>
              </thead>
              <tbody>
                {list.map((member) => (
                  <tr key={member.user_id}>
                    <th scope="row" className="cell-title">
                      <span className="person">
                        <Avatar url={member.avatar_url} login={member.login} />
                        <span>
                          <span className="person-name">{member.name || member.login}</span>
                          <span className="cell-sub">@{member.login}{member.user_id === currentUserId ? ' (you)' : ''}</span>
                        </span>
                      </span>
                    </th>
                    <td data-label="Role">
                      {canManage ? (
                        <select
                          className="input input-compact"
                          aria-label={`Role of ${member.login}`}
                          value={member.role}
                          onChange={(e) => void setRole(member, e.target.value as Role)}
                        >
                          <option value="member">Member</option>
                          <option value="owner">Owner</option>
                        </select>
                      ) : <span className="tag">{member.role === 'owner' ? 'Owner' : 'Member'}</span>}
                    </td>
                    {canManage && (
                      <td className="cell-actions">
                        <ConfirmButton label="Remove" confirmLabel={`Remove ${member.login}`} onConfirm={() => remove(member)} />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </section>
  );
}
