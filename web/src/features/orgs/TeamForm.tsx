import { useState, type FormEvent } from 'react';
import { messageOf } from '../../api/client';
import type { Member, Team } from '../../api/types';
import { useSaveTeam } from './api';
import { toggled } from '../../lib/sets';

/** Creates a team, or edits one: name, description and which members of the org belong to it. */
export function TeamForm({ orgId, team, members, onDone }: {
  orgId: string;
  team?: Team;
  members: Member[];
  /** Saved or cancelled: the list shows again. */
  onDone: () => void;
}) {
  const [name, setName] = useState(team?.name ?? '');
  const [description, setDescription] = useState(team?.description ?? '');
  const [chosen, setChosen] = useState<Set<string>>(new Set(team?.members ?? []));
  const save = useSaveTeam(orgId);
  const idPrefix = `team-${team?.id ?? 'new'}`;

  const toggle = (id: string) => setChosen(toggled(chosen, id));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = { name: name.trim(), description: description.trim(), members: [...chosen] };
    save.mutate({ teamId: team?.id, body }, { onSuccess: onDone });
  };

  return (
    <form className="card form" onSubmit={submit} aria-labelledby={`${idPrefix}-title`}>
      <h2 id={`${idPrefix}-title`} className="card-title">{team ? `Edit ${team.name}` : 'New team'}</h2>
      <div className="form-grid">
        <div className="field">
          <label htmlFor={`${idPrefix}-name`}>Name</label>
          <input id={`${idPrefix}-name`} className="input" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        </div>
        <div className="field">
          <label htmlFor={`${idPrefix}-description`}>Description <span className="muted">(optional)</span></label>
          <input id={`${idPrefix}-description`} className="input" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
      </div>
      <fieldset className="fieldset">
        <legend>Members</legend>
        <div className="check-grid">
          {members.map((m) => (
            <label key={m.user_id} className="check">
              <input type="checkbox" checked={chosen.has(m.user_id)} onChange={() => toggle(m.user_id)} />
              {m.name || m.login} <span className="muted">@{m.login}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {save.isError && <div className="notice notice-error" role="alert">{messageOf(save.error)}</div>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending || !name.trim()}>{save.isPending ? 'Saving…' : team ? 'Save team' : 'Create team'}</button>
        <button type="button" className="button" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}
