import { useState, type FormEvent } from 'react';
import { messageOf } from '../../api/client';
import type { Member, Team } from '../../api/types';
import { useSaveTeam } from './api';
import { toggled } from '../../lib/sets';
import { CheckGrid, TextField } from '../../components/Field';

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
        <TextField id={`${idPrefix}-name`} label="Name" required maxLength={100} value={name} onChange={setName} autoComplete="off" />
        <TextField id={`${idPrefix}-description`} label="Description" optional maxLength={500} value={description} onChange={setDescription} />
      </div>
      <fieldset className="fieldset">
        <legend>Members</legend>
        <CheckGrid items={members.map((m) => m.user_id)} checked={chosen} onToggle={toggle}>
          {(userId) => {
            const m = members.find((member) => member.user_id === userId)!;
            return <>{m.name || m.login} <span className="muted">@{m.login}</span></>;
          }}
        </CheckGrid>
      </fieldset>
      {save.isError && <div className="notice notice-error" role="alert">{messageOf(save.error)}</div>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending || !name.trim()}>{save.isPending ? 'Saving…' : team ? 'Save team' : 'Create team'}</button>
        <button type="button" className="button" onClick={onDone}>Cancel</button>
      </div>
    </form>
  );
}
