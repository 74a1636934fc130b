import { useState, type FormEvent } from 'react';
import { messageOf } from '../../api/client';
import type { CreatedApiKey, CurrentUser, KeyScope } from '../../api/types';
import { useCreateKey } from './api';
import { toggled } from '../../lib/sets';
import { CheckGrid, SelectField, TextField } from '../../components/Field';

const SCOPES: { value: KeyScope; label: string; help: string }[] = [
  { value: 'upload', label: 'Upload', help: 'Read, and upload scan results. What a CI pipeline needs.' },
  { value: 'read', label: 'Read', help: 'Read organizations, repositories and results; change nothing.' },
  { value: 'write', label: 'Write', help: 'Everything you may do yourself, except managing keys.' },
];
const EXPIRY = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: 'never', label: 'Never' },
];

export function CreateKeyForm({ orgs, onCreated, onCancel }: {
  orgs: CurrentUser['orgs'];
  onCreated: (key: CreatedApiKey) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<KeyScope>('upload');
  const [expiry, setExpiry] = useState('90');
  const [allOrgs, setAllOrgs] = useState(true);
  const [orgIds, setOrgIds] = useState<Set<string>>(new Set());
  const [problem, setProblem] = useState<string>();
  const create = useCreateKey();

  const toggleOrg = (id: string) => setOrgIds(toggled(orgIds, id));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!allOrgs && orgIds.size === 0) {
      setProblem('Choose at least one organization, or let the key use all of yours.');
      return;
    }
    setProblem(undefined);
    const expiresAt = expiry === 'never' ? null : new Date(Date.now() + Number(expiry) * 24 * 3600 * 1000).toISOString();
    create.mutate(
      { name: name.trim(), scopes: [scope], expires_at: expiresAt, org_ids: allOrgs ? null : [...orgIds] },
      { onSuccess: onCreated },
    );
  };
  const error = problem ?? (create.isError ? messageOf(create.error) : undefined);

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="create-key-title">
      <h3 id="create-key-title" className="card-title">New API key</h3>
      <div className="form-grid">
        <TextField id="key-name" label="Name" required maxLength={100} value={name} onChange={setName} placeholder="e.g. GitHub Actions: payments-api" autoComplete="off" />
        <SelectField id="key-expiry" label="Expires" value={expiry} onChange={setExpiry} options={EXPIRY} />
      </div>
      <fieldset className="fieldset">
        <legend>Scope</legend>
        <div className="radio-cards">
          {SCOPES.map((s) => (
            <label key={s.value} className="radio-card">
              <input type="radio" name="scope" value={s.value} checked={scope === s.value} onChange={() => setScope(s.value)} />
              <span>
                <span className="radio-card-title">{s.label}</span>
                <span className="radio-card-help">{s.help}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="fieldset">
        <legend>Organizations</legend>
        <label className="check">
          <input type="checkbox" checked={allOrgs} onChange={(e) => setAllOrgs(e.target.checked)} />
          All my organizations, including ones I join later
        </label>
        {!allOrgs && (
          orgs.length === 0
            ? <p className="muted">You are not in any organization yet.</p>
            : <CheckGrid items={orgs.map((o) => o.id)} checked={orgIds} onToggle={toggleOrg}>{(id) => orgs.find((o) => o.id === id)!.name}</CheckGrid>
        )}
      </fieldset>
      {error && <div className="notice notice-error" role="alert">{error}</div>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending || !name.trim()}>{create.isPending ? 'Creating…' : 'Create key'}</button>
        <button type="button" className="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
