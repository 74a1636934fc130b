import { useState } from 'react';
import { api, call, messageOf } from '../../api/client';
import type { Member, Team } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { EmptyState, Loaded } from '../../components/States';
import { plural } from '../../lib/format';
import { useResource } from '../../lib/useResource';
import { loadMembers } from './members';
import { TeamForm } from './TeamForm';

export function TeamList({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const data = useResource(async (signal) => {
    const [teams, members] = await Promise.all([
      call(api.GET('/api/v1/orgs/{org_id}/teams', { params: { path: { org_id: orgId }, query: { per_page: 100 } }, signal })).then((r) => r.data),
      loadMembers(orgId, signal),
    ]);
    return { teams, members };
  }, orgId);
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const [error, setError] = useState<string>();

  const remove = async (team: Team) => {
    setError(undefined);
    try {
      await call(api.DELETE('/api/v1/teams/{id}', { params: { path: { id: team.id } } }));
      data.reload();
    } catch (caught) {
      setError(`The team ${team.name} was not deleted: ${messageOf(caught)}`);
    }
  };
  const saved = () => {
    setEditing(null);
    data.reload();
  };

  return (
    <section className="section" aria-label="Teams">
      {canManage && editing !== 'new' && (
        <div className="toolbar toolbar-end">
          <button type="button" className="button button-primary" onClick={() => setEditing('new')}>New team</button>
        </div>
      )}
      {error && <div className="notice notice-error" role="alert">{error}</div>}
      <Loaded resource={data} label="Loading teams…">
        {({ teams, members }) => (
          <>
            {editing === 'new' && <TeamForm orgId={orgId} members={members} onSaved={saved} onCancel={() => setEditing(null)} />}
            {teams.length === 0 && editing !== 'new' ? (
              <EmptyState title="No teams yet">
                <p>Teams group the members of an organization, e.g. the people who own a service.</p>
              </EmptyState>
            ) : (
              <ul className="team-list">
                {teams.map((team) => editing === team.id ? (
                  <li key={team.id}><TeamForm orgId={orgId} team={team} members={members} onSaved={saved} onCancel={() => setEditing(null)} /></li>
                ) : (
                  <li key={team.id} className="card team-card">
                    <div className="team-card-head">
                      <h3 className="team-name">{team.name}</h3>
                      <span className="muted">{plural(team.members.length, 'member')}</span>
                    </div>
                    {team.description && <p className="team-description">{team.description}</p>}
                    <MemberNames ids={team.members} members={members} />
                    {canManage && (
                      <div className="team-actions">
                        <button type="button" className="button button-small" onClick={() => setEditing(team.id)}>Edit</button>
                        <ConfirmButton label="Delete" confirmLabel={`Delete ${team.name}`} onConfirm={() => remove(team)} />
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
