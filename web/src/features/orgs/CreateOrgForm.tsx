import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { messageOf } from '../../api/client';
import { useCreateOrg } from './api';
import { TextField } from '../../components/Field';

/** Creates an organization (the creator becomes its owner) and opens it. */
export function CreateOrgForm({ onCancel }: { onCancel?: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const navigate = useNavigate();
  const create = useCreateOrg();
  const busy = create.isPending || create.isSuccess;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(
      { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) },
      { onSuccess: (org) => void navigate(`/orgs/${org.id}`) },
    );
  };

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="create-org-title">
      <h2 id="create-org-title" className="card-title">New organization</h2>
      <TextField id="org-name" label="Name" required maxLength={100} value={name} onChange={setName} autoComplete="off" />
      <TextField id="org-description" label="Description" optional maxLength={500} value={description} onChange={setDescription} />
      {create.isError && <div className="notice notice-error" role="alert">{messageOf(create.error)}</div>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()}>{busy ? 'Creating…' : 'Create organization'}</button>
        {onCancel && <button type="button" className="button" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}
