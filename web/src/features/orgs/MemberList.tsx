import { useState } from 'react';
import { messageOf } from '../../api/client';
import type { Member } from '../../api/types';
import { Avatar } from '../../components/Avatar';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ACTIONS_HEADER, DataTable, type Column } from '../../components/DataTable';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { useMembers, useRemoveMember, useSetMemberRole } from './api';
import { AddMemberForm } from './AddMemberForm';

type Role = 'owner' | 'member';

export function MemberList({ orgId, canManage, currentUserId }: { orgId: string; canManage: boolean; currentUserId: string }) {
  const members = useMembers(orgId);
  const setRole = useSetMemberRole(orgId);
  const remove = useRemoveMember(orgId);
  const [adding, setAdding] = useState(false);

  const columns: Column<Member>[] = [
    {
      id: 'member', header: 'Member', rowHeader: true,
      cell: (member) => (
        <span className="person">
          <Avatar url={member.avatar_url} login={member.login} />
          <span>
            <span className="person-name">{member.name || member.login}</span>
            <span className="cell-sub">@{member.login}{member.user_id === currentUserId ? ' (you)' : ''}
              {member.state === 'pending' && <> <span className="tag" title="Has not signed in yet">Pending</span></>}
              {member.source !== 'local' && <> <span className="tag" title="Where this membership comes from">{member.source === 'forge' ? 'From the forge' : member.source === 'idp' ? 'From sign-in groups' : 'Provisioned'}</span></>}
            </span>
          </span>
        </span>
      ),
    },
    {
      id: 'role', header: 'Role',
      cell: (member) => canManage ? (
        <select
          className="input input-compact"
          aria-label={`Role of ${member.login}`}
          value={member.role}
          disabled={setRole.isPending}
          onChange={(e) => setRole.mutate({ userId: member.user_id, role: e.target.value as Role })}
        >
          <option value="member">Member</option>
          <option value="owner">Owner</option>
        </select>
      ) : <span className="tag">{member.role === 'owner' ? 'Owner' : 'Member'}</span>,
    },
  ];
  if (canManage) {
    columns.push({
      id: 'actions', header: ACTIONS_HEADER, className: 'cell-actions',
      cell: (member) => <ConfirmButton label="Remove" confirmLabel={`Remove ${member.login}`} onConfirm={() => remove.mutateAsync(member.user_id)} />,
    });
  }

  return (
    <section className="section" aria-label="Members">
      {canManage && (
        <div className="toolbar toolbar-end">
          {!adding && <button type="button" className="button button-primary" onClick={() => setAdding(true)}>Add member</button>}
        </div>
      )}
      {adding && <AddMemberForm orgId={orgId} onDone={() => setAdding(false)} />}
      {setRole.isError && <div className="notice notice-error" role="alert">The role was not changed: {messageOf(setRole.error)}</div>}
      {remove.isError && <div className="notice notice-error" role="alert">The member was not removed: {messageOf(remove.error)}</div>}
      <Loaded query={members} skeleton={<TableSkeleton label="Loading members…" />}>
        {(list) => list.length === 0 ? <EmptyState title="No members" /> : (
          <DataTable caption="Members of this organization" columns={columns} rows={list} rowKey={(m) => m.user_id} />
        )}
      </Loaded>
    </section>
  );
}
