import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { messageOf } from '../../api/client';
import { useAddRepo } from '../repos/api';
import { TextField } from '../../components/Field';

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
        <TextField id="repo-name" label="Name" required maxLength={200} value={name} onChange={setName} placeholder="payments-api" autoComplete="off" />
        <TextField id="repo-url" label="URL on the forge" optional type="url" value={url} onChange={setUrl} placeholder="https://git.example.com/team/payments-api" />
        <TextField id="repo-branch" label="Default branch" optional value={branch} onChange={setBranch} placeholder="main" autoComplete="off" />
      </div>
      {add.isError && <div className="notice notice-error" role="alert">{messageOf(add.error)}</div>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()}>{busy ? 'Adding…' : 'Add repository'}</button>
        <button type="button" className="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
