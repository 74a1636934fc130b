import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { messageOf } from '../../api/client';
import { useAddRepo } from '../repos/api';

export function AddRepoForm({ orgId, onCancel }: { orgId: string; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [branch, setBranch] = useState('');
  const navigate = useNavigate();
  const add = useAddRepo(orgId);
  // Busy from the click until the new repository's page shows, so it cannot be sent twice.
  const busy = add.isPending || add.isSuccess;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({
      name: name.trim(),
      ...(url.trim() ? { url: url.trim() } : {}),
      ...(branch.trim() ? { default_branch: branch.trim() } : {}),
    }, { onSuccess: (repo) => void navigate(`/repos/${repo.id}`) });
  };

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="add-repo-title">
      <h2 id="add-repo-title" className="card-title">Add a repository</h2>
      <div className="form-grid">
        <div className="field">
          <label htmlFor="repo-name">Name</label>
          <input id="repo-name" className="input" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="payments-api" autoComplete="off" />
        </div>
        <div className="field">
          <label htmlFor="repo-url">URL on the forge <span className="muted">(optional)</span></label>
          <input id="repo-url" className="input" type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://git.example.com/team/payments-api" />
        </div>
        <div className="field">
          <label htmlFor="repo-branch">Default branch <span className="muted">(optional)</span></label>
          <input id="repo-branch" className="input" value={branch} onChange={(e) => setBranch(e.target.value)} placeholder="main" autoComplete="off" />
        </div>
      </div>
      {add.isError && <div className="notice notice-error" role="alert">{messageOf(add.error)}</div>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()}>{busy ? 'Adding…' : 'Add repository'}</button>
        <button type="button" className="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
