import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { useSubmit } from '../lib/useSubmit';
import { navigate } from '../router';
import { useSession } from '../session';

/** Creates an organization (the creator becomes its owner) and opens it. */
export function CreateOrgForm({ onCancel }: { onCancel?: () => void }) {
  const { refresh } = useSession();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const { busy, error, run } = useSubmit();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    return run(async () => {
      const { data } = await call(api.POST('/api/v1/orgs', { body: { name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) } }));
      await refresh();
      navigate(`/orgs/${data.id}`);
    });
  };

  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-labelledby="create-org-title">
      <h2 id="create-org-title" className="card-title">New organization</h2>
      <div className="field">
        <label htmlFor="org-name">Name</label>
        <input id="org-name" className="input" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
      </div>
      <div className="field">
        <label htmlFor="org-description">Description <span className="muted">(optional)</span></label>
        <input id="org-description" className="input" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
      </div>
      {error && <div className="notice notice-error" role="alert">{error}</div>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()}>{busy ? 'Creating…' : 'Create organization'}</button>
        {onCancel && <button type="button" className="button" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}
