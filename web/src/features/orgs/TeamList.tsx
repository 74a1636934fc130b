import { useState } from 'react';
import { messageOf } from '../../api/client';
import type { Member } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { plural } from '../../lib/format';
import { useDeleteTeam, useMembers, useTeams } from './api';
import { TeamForm } from './TeamForm';
import { TeamRepos } from './TeamRepos';
import { BaseRoleSetting } from './BaseRoleSetting';

export function TeamList({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const teams = useTeams(orgId);
  const members = useMembers(orgId);
  const remove = useDeleteTeam(orgId);
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const both = {
    data: teams.data && members.data ? { teams: teams.data.teams, members: members.data } : undefined,
    error: teams.error ?? members.error,
    refetch: () => Promise.all([teams.refetch(), members.refetch()]),
  };

  return (
    <section className="section" aria-label="Teams">
      <BaseRoleSetting orgId={orgId} canManage={canManage} />
      {canManage && editing !== 'new' && (
        <div className="toolbar toolbar-end">
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>New team</button>
        </div>
      )}
      {remove.isError && <div className="notice notice-error" role="alert">The team was not deleted: {messageOf(remove.error)}</div>}
      <Loaded query={both} skeleton={<TableSkeleton label="Loading teams…" rows={3} />}>
        {({ teams: list, members: people }) => (
          <>
            {editing === 'new' && <TeamForm orgId={orgId} members={people} onDone={() => setEditing(null)} />}
            {list.length === 0 && editing !== 'new' ? (
              <EmptyState title="No teams yet">
                <p>Teams group the members of an organization, e.g. the people who own a service.</p>
              </EmptyState>
            ) : (
              <ul className="team-list">
                {list.map((team) => editing === team.id ? (
                  <li key={team.id}><TeamForm orgId={orgId} team={team} members={people} onDone={() => setEditing(null)} /></li>
                ) : (
                  <li key={team.id} className="card team-card">
                    <div className="team-card-head">
                      <h3 className="team-name">{team.name}</h3>
                      {team.source === 'forge' && <span className="tag" title="Synced from the forge: change it there">Follows the forge</span>}
                      {team.source === 'scim' && <span className="tag" title="A group of your identity provider: change its name and members there">Provisioned by SCIM</span>}
                      <span className="muted">{plural(team.members.length, 'member')}</span>
                    </div>
                    {team.description && <p className="team-description">{team.description}</p>}
                    <MemberNames ids={team.members} members={people} />
                    <TeamRepos orgId={orgId} teamId={team.id} canEdit={canManage && team.source !== 'forge'} />
                    {canManage && team.source !== 'forge' && team.source !== 'scim' && (
                      <div className="team-actions">
                        <button type="button" className="button button-small" onClick={() => setEditing(team.id)}>Edit</button>
                        <ConfirmButton label="Delete" confirmLabel={`Delete ${team.name}`} onConfirm={() => remove.mutateAsync(team.id)} />
                      </div>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

function MemberNames({ ids, members }: { ids: string[]; members: Member[] }) {
  if (ids.length === 0) return <p className="muted">No members yet.</p>;
  const byId = new Map(members.map((m) => [m.user_id, m]));
  return (
    <ul className="chips" aria-label="Team members">
      {ids.map((id) => <li key={id} className="chip">{byId.get(id)?.login ?? 'former member'}</li>)}
    </ul>
  );
}
