import { useState, type FormEvent } from 'react';
import { ACTIONS_HEADER, DataTable, type Column } from '../../components/DataTable';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CheckGrid, SelectField, TextField } from '../../components/Field';
import { SearchInput } from '../../components/SearchInput';
import { endOfLocalDay, plural } from '../../lib/format';
import { toggled } from '../../lib/sets';
import { useOrgRepos } from '../orgs/api';
import { ProblemNotice } from '../../components/ProblemNotice';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { REASON_LABEL } from '../findings/TriageForm';
import type { NewSuppressionRule } from '../../api/types';
import { useCreateSuppressionRule, useDeleteSuppressionRule, useSuppressionRules, type SuppressionRule } from './api';

type RuleReason = SuppressionRule['reason'];
const RULE_REASONS = (['used_in_tests', 'false_positive', 'wont_fix', 'accepted_risk', 'not_affected'] as const).map((value) => ({ value, label: REASON_LABEL[value] }));
const MATCHERS = [
  { key: 'path', label: 'Path glob', placeholder: 'test/**' },
  { key: 'tool', label: 'Tool', placeholder: 'CodeQL' },
  { key: 'rule_id', label: 'Rule id', placeholder: 'js/xss' },
  { key: 'purl', label: 'Package URL', placeholder: 'pkg:npm/lodash' },
  { key: 'advisory', label: 'Advisory', placeholder: 'CVE-2021-44228' },
] as const;
type Matcher = (typeof MATCHERS)[number]['key'];

function Matches({ rule }: { rule: SuppressionRule }) {
  const given = MATCHERS.filter((m) => rule[m.key] !== null);
  return <>{given.map((m, i) => <span key={m.key}>{i > 0 && ' · '}{m.label} <code>{rule[m.key]}</code></span>)}</>;
}

/** The organization's suppression rules: every member reads them, owners add and delete. */
export function SuppressionsPanel({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const rules = useSuppressionRules(orgId);
  const remove = useDeleteSuppressionRule(orgId);
  const columns: Column<SuppressionRule>[] = [
    { id: 'matches', header: 'Matches', rowHeader: true, className: 'mono location', cell: (r) => <Matches rule={r} /> },
    { id: 'reason', header: 'Reason', cell: (r) => REASON_LABEL[r.reason] },
    { id: 'comment', header: 'Comment', cell: (r) => r.comment ?? <span className="muted">—</span> },
    { id: 'where', header: 'Repositories', cell: (r) => r.repositories ? plural(r.repositories.length, 'repository', 'repositories') : 'All' },
    { id: 'expires', header: 'Expires', cell: (r) => r.expires_at ? <Time iso={r.expires_at} /> : <span className="muted">never</span> },
    { id: 'findings', header: 'Findings held', className: 'num', cell: (r) => <span data-testid="rule-findings">{r.findings}</span> },
    { id: 'created', header: 'Created', cell: (r) => <Time iso={r.created_at} /> },
    ...(canManage ? [{ id: 'actions', header: ACTIONS_HEADER, label: false as const, cell: (r: SuppressionRule) => <ConfirmButton label="Delete" confirmLabel="Delete rule" onConfirm={() => remove.mutateAsync(r.id)} /> }] : []),
  ];
  return (
    <section className="section" aria-label="Suppression rules">
      <p className="muted">A rule dismisses every finding of the organization&apos;s repositories that it matches, now and in later uploads; deleting it opens them again.</p>
      {canManage && <CreateRuleForm orgId={orgId} />}
      {remove.error != null && <ProblemNotice error={remove.error} lead="Could not delete the rule." />}
      <Loaded query={rules} skeleton={<TableSkeleton label="Loading the rules…" />}>
        {(rows) => rows.length === 0
          ? <EmptyState title="No suppression rules" />
          : <DataTable caption="Suppression rules" columns={columns} rows={rows} rowKey={(r) => r.id} />}
      </Loaded>
    </section>
  );
}

const NO_FIELDS = { path: '', tool: '', rule_id: '', purl: '', advisory: '', comment: '' };

function CreateRuleForm({ orgId }: { orgId: string }) {
  const create = useCreateSuppressionRule(orgId);
  const [fields, setFields] = useState<Record<Matcher | 'comment', string>>(NO_FIELDS);
  const [reason, setReason] = useState<RuleReason>('used_in_tests');
  const [expires, setExpires] = useState('');
  const [repositories, setRepositories] = useState<ReadonlySet<string>>(new Set());
  const set = (key: Matcher | 'comment') => (value: string) => setFields((before) => ({ ...before, [key]: value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: NewSuppressionRule = { reason };
    for (const [key, value] of Object.entries(fields) as [Matcher | 'comment', string][]) if (value.trim()) body[key] = value.trim();
    if (expires) body.expires_at = endOfLocalDay(expires);
    if (repositories.size > 0) body.repositories = [...repositories];
    create.mutate(body, {
      onSuccess: () => {
        setFields(NO_FIELDS);
        setExpires('');
        setRepositories(new Set());
      },
    });
  };
  return (
    <form className="card form" aria-labelledby="new-rule-title" onSubmit={submit}>
      <h2 id="new-rule-title" className="card-title">New suppression rule</h2>
      <div className="form-grid">
        {MATCHERS.map((m) => <TextField key={m.key} id={`rule-${m.key}`} label={m.label} optional placeholder={m.placeholder} value={fields[m.key]} onChange={set(m.key)} />)}
        <SelectField id="rule-reason" label="Reason" value={reason} onChange={setReason} options={RULE_REASONS} />
        <TextField id="rule-comment" label="Comment" optional value={fields.comment} onChange={set('comment')} />
        <TextField id="rule-expires" label="Expires after" optional type="date" value={expires} onChange={setExpires} />
      </div>
      <RepositoryPicker orgId={orgId} chosen={repositories} onChange={setRepositories} />
      {create.error != null && <ProblemNotice error={create.error} lead="Could not create the rule." />}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending}>Create rule</button>
      </div>
    </form>
  );
}

/** Limits a rule to some of the organization's repositories; none chosen means every one. */
function RepositoryPicker({ orgId, chosen, onChange }: { orgId: string; chosen: ReadonlySet<string>; onChange: (ids: ReadonlySet<string>) => void }) {
  const [q, setQ] = useState('');
  const repos = useOrgRepos(orgId, { page: 1, q });
  const names = new Map((repos.data?.rows ?? []).map((r) => [r.repo.id, r.repo.name]));
  return (
    <fieldset className="field">
      <legend>Only these repositories <span className="muted">(none chosen: every repository of the organization)</span></legend>
      <SearchInput value={q} onChange={setQ} label="Find a repository" />
      <CheckGrid items={[...new Set([...chosen, ...names.keys()])]} checked={chosen} onToggle={(id) => onChange(toggled(chosen, id))}>
        {(id) => names.get(id) ?? id}
      </CheckGrid>
    </fieldset>
  );
}
