import { useState, type FormEvent } from 'react';
import { ACTIONS_HEADER, DataTable, type Column } from '../../components/DataTable';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SelectField, TextField } from '../../components/Field';
import { ProblemNotice } from '../../components/ProblemNotice';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { useOrgRepos } from '../orgs/api';
import type { NewCiTrustRule } from '../../api/types';
import { useCiDefaultRule, useCiTrustRules, useCreateCiTrustRule, useDeleteCiTrustRule, useSetCiDefaultRule, type CiTrustRule } from './api';

type RuleEvent = '' | 'push' | 'pull_request' | 'tag';
const EVENTS: { value: RuleEvent; label: string }[] = [
  { value: '', label: 'Push, pull request or tag' }, { value: 'push', label: 'Push' }, { value: 'pull_request', label: 'Pull request' }, { value: 'tag', label: 'Tag' },
];

/** Which CI pipelines may upload without a key: members read, owners add and delete. */
export function CiTrustPanel({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const rules = useCiTrustRules(orgId);
  const remove = useDeleteCiTrustRule(orgId);
  const repos = useOrgRepos(orgId, { page: 1, q: '' });
  const names = new Map((repos.data?.rows ?? []).map((r) => [r.repo.id, r.repo.name]));
  const columns: Column<CiTrustRule>[] = [
    { id: 'repository', header: 'CI repository', rowHeader: true, className: 'mono', cell: (r) => <code>{r.repository}</code> },
    { id: 'issuer', header: 'Issuer', cell: (r) => r.issuer },
    { id: 'ref', header: 'Ref', className: 'mono', cell: (r) => r.ref ?? <span className="muted">any</span> },
    { id: 'event', header: 'Event', cell: (r) => r.event ?? <span className="muted">any</span> },
    { id: 'target', header: 'Uploads to', cell: (r) => r.target_repo_id ? (names.get(r.target_repo_id) ?? r.target_repo_id) : <span className="muted">the repository linked to it</span> },
    { id: 'created', header: 'Created', cell: (r) => <Time iso={r.created_at} /> },
    ...(canManage ? [{ id: 'actions', header: ACTIONS_HEADER, label: false as const, cell: (r: CiTrustRule) => <ConfirmButton label="Delete" confirmLabel="Delete rule" onConfirm={() => remove.mutateAsync(r.id)} /> }] : []),
  ];
  return (
    <section className="section" aria-label="CI trust rules">
      <p className="muted">
        A pipeline that matches a rule uploads without an API key: it exchanges its CI&apos;s OIDC job token for a 15-minute token that uploads only
        to the rule&apos;s repository, for the branch or pull request it built.
      </p>
      <DefaultRule orgId={orgId} canManage={canManage} />
      {canManage && <CreateRuleForm orgId={orgId} repos={[...names]} />}
      {remove.error != null && <ProblemNotice error={remove.error} lead="Could not delete the rule." />}
      <Loaded query={rules} skeleton={<TableSkeleton label="Loading the rules…" />}>
        {(rows) => rows.length === 0
          ? <EmptyState title="No CI trust rules" />
          : <DataTable caption="CI trust rules" columns={columns} rows={rows} rowKey={(r) => r.id} />}
      </Loaded>
    </section>
  );
}

function DefaultRule({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const rule = useCiDefaultRule(orgId);
  const set = useSetCiDefaultRule(orgId);
  if (!rule.data) return null;
  return (
    <div className="card">
      <label className="check">
        <input type="checkbox" checked={rule.data.enabled} disabled={!canManage || set.isPending} onChange={(e) => set.mutate(e.target.checked)} />{' '}
        Each repository linked to the forge accepts uploads from its own pipelines
      </label>
      <p className="hint">{rule.data.applies ? 'In effect.' : rule.data.enabled ? 'Takes effect once the organization is linked to its forge.' : 'Off: only the rules below apply.'}</p>
      {set.error != null && <ProblemNotice error={set.error} lead="Could not change the default rule." />}
    </div>
  );
}

const NO_FIELDS = { issuer: 'github', repository: '', ref: '', environment: '' };

function CreateRuleForm({ orgId, repos }: { orgId: string; repos: [string, string][] }) {
  const create = useCreateCiTrustRule(orgId);
  const [fields, setFields] = useState(NO_FIELDS);
  const [event, setEvent] = useState<RuleEvent>('');
  const [target, setTarget] = useState('');
  const set = (key: keyof typeof NO_FIELDS) => (value: string) => setFields((before) => ({ ...before, [key]: value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: NewCiTrustRule = { issuer: fields.issuer.trim(), repository: fields.repository.trim() };
    if (fields.ref.trim()) body.ref = fields.ref.trim();
    if (fields.environment.trim()) body.environment = fields.environment.trim();
    if (event) body.event = event;
    if (target) body.target_repo_id = target;
    create.mutate(body, { onSuccess: () => setFields(NO_FIELDS) });
  };
  return (
    <form className="card form" aria-labelledby="new-ci-rule-title" onSubmit={submit}>
      <h2 id="new-ci-rule-title" className="card-title">Trust a CI pipeline</h2>
      <div className="form-grid">
        <TextField id="ci-issuer" label="Issuer (its id in SERVICE_CI_ISSUERS)" value={fields.issuer} onChange={set('issuer')} />
        <TextField id="ci-repository" label="CI repository or glob" placeholder="acme/payments-api" value={fields.repository} onChange={set('repository')} />
        <TextField id="ci-ref" label="Ref glob" optional placeholder="refs/heads/main" value={fields.ref} onChange={set('ref')} />
        <SelectField id="ci-event" label="Event" value={event} onChange={setEvent} options={EVENTS} />
        <TextField id="ci-environment" label="Environment" optional value={fields.environment} onChange={set('environment')} />
        <SelectField id="ci-target" label="Uploads to" value={target} onChange={setTarget}
          options={[{ value: '', label: 'The repository linked to it (forge id)' }, ...repos.map(([id, name]) => ({ value: id, label: name }))]} />
      </div>
      {create.error != null && <ProblemNotice error={create.error} lead="Could not create the rule." />}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending}>Create rule</button>
      </div>
    </form>
  );
}
