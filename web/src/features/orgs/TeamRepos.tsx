import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { messageOf } from '../../api/client';
import { ConfirmButton } from '../../components/ConfirmButton';
import { useGrantTeamRepo, useRepoChoices, useRevokeTeamRepo, useTeamRepos, type RepoRole } from './api';

const ROLES: { value: RepoRole; label: string }[] = [
  { value: 'read', label: 'Read' },
  { value: 'triage', label: 'Triage' },
  { value: 'admin', label: 'Admin' },
];

/** A team's repositories and its role on each; owners add, change and remove them on a local team. */
export function TeamRepos({ orgId, teamId, canEdit }: { orgId: string; teamId: string; canEdit: boolean }) {
  const repos = useTeamRepos(orgId, teamId);
  const grant = useGrantTeamRepo(orgId, teamId);
  const revoke = useRevokeTeamRepo(orgId, teamId);
  const [adding, setAdding] = useState(false);
  const choices = useRepoChoices(orgId, canEdit && adding);
  const [repoId, setRepoId] = useState('');
  const [role, setRole] = useState<RepoRole>('read');
  const held = new Set((repos.data ?? []).map((r) => r.repository_id));
  const available = (choices.data ?? []).filter((r) => !held.has(r.id));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!repoId) return;
    grant.mutate({ repoId, role }, { onSuccess: () => { setRepoId(''); setAdding(false); } });
  };

  if (repos.isError) return <p className="notice notice-error" role="alert">The team's repositories did not load: {messageOf(repos.error)}</p>;
  const list = repos.data ?? [];
  return (
    <div className="team-repos">
      <h4 className="team-repos-title">Repositories</h4>
      {list.length === 0 ? <p className="muted">{repos.isPending ? 'Loading…' : 'None: its members read only what the organization\'s base role gives them.'}</p> : (
        <ul className="team-repo-list" aria-label="Team repositories">
          {list.map((r) => (
            <li key={r.repository_id} className="team-repo">
              <Link to={`/repos/${r.repository_id}`}>{r.name}</Link>
              {canEdit ? (
                <select className="input input-compact" aria-label={`Role on ${r.name}`} value={r.role} disabled={grant.isPending}
                  onChange={(e) => grant.mutate({ repoId: r.repository_id, role: e.target.value as RepoRole })}>
                  {ROLES.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                </select>
              ) : <span className="tag">{ROLES.find((o) => o.value === r.role)?.label}</span>}
              {canEdit && <ConfirmButton label="Remove" confirmLabel={`Remove ${r.name}`} onConfirm={() => revoke.mutateAsync(r.repository_id)} />}
            </li>
          ))}
        </ul>
      )}
      {(grant.isError || revoke.isError) && <div className="notice notice-error" role="alert">{messageOf(grant.error ?? revoke.error)}</div>}
      {canEdit && !adding && <button type="button" className="button button-small" onClick={() => setAdding(true)}>Add repository</button>}
      {canEdit && adding && (
        <form className="toolbar" onSubmit={submit} aria-label="Give the team a repository">
          <select className="input input-compact" aria-label="Repository" value={repoId} onChange={(e) => setRepoId(e.target.value)}>
            <option value="">{choices.isPending ? 'Loading…' : available.length ? 'Choose a repository' : 'No other repository'}</option>
            {available.map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
          </select>
          <select className="input input-compact" aria-label="Role" value={role} onChange={(e) => setRole(e.target.value as RepoRole)}>
            {ROLES.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
          </select>
          <button type="submit" className="button button-small button-primary" disabled={!repoId || grant.isPending}>Add</button>
          <button type="button" className="button button-small" onClick={() => setAdding(false)}>Cancel</button>
        </form>
      )}
    </div>
  );
}
