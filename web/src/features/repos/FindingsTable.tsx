import { useState } from 'react';
import { Link } from 'react-router';
import type { Finding, ScanStatus } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { Pagination } from '../../components/Pagination';
import { SearchInput } from '../../components/SearchInput';
import { SeverityBadge } from '../../components/SeverityBadge';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { plural } from '../../lib/format';
import { isInventoryOnly } from '../../lib/scan-state';
import { isSeverity, SEVERITIES, SEVERITY_LABEL } from '../../lib/severity';
import { pageParam, useSearchState } from '../../lib/use-search-state';
import { useFindings } from './api';
import { locationOf, ruleTitle } from './finding-text';
import { BulkTriage } from '../findings/BulkTriage';
import { REASON_LABEL } from '../findings/TriageForm';
import { VulnerabilityGroups } from './VulnerabilityGroups';
import { VS_BASE, vsBaseFilter } from './VsBase';
import { Location } from './Location';

const STATES = [
  { value: 'open', label: 'Open' },
  { value: 'fixed', label: 'Fixed' },
  { value: 'dismissed', label: 'Dismissed' },
  { value: 'all', label: 'All states' },
] as const;
type StateFilter = (typeof STATES)[number]['value'];
const stateFilter = (value: string | null): StateFilter => STATES.find((s) => s.value === value)?.value ?? 'open';

const COLUMNS: Column<Finding>[] = [
  { id: 'severity', header: 'Severity', className: 'c-sev', cell: (f) => <SeverityBadge severity={f.severity} /> },
  { id: 'finding', header: 'Finding', rowHeader: true, className: 'finding-title', cell: (f) => <FindingTitle finding={f} /> },
  { id: 'location', header: 'Location', className: 'mono location c-loc', cell: (f) => <Location finding={f} /> },
  { id: 'tool', header: 'Tool', className: 'c-meta c-tool', cell: (f) => f.tool },
  { id: 'category', header: 'Category', className: 'c-meta', cell: (f) => f.category || <span className="muted">—</span> },
  {
    id: 'state', header: 'State', className: 'c-meta c-state',
    cell: (f) => (
      <>
        <span className={`state state-${f.state}`}>{f.state === 'open' && f.reopened_at ? 'reopened' : f.state}</span>
        {f.state === 'dismissed' && f.dismissal && <span className="cell-sub" title={f.dismissal.comment ?? undefined}>{REASON_LABEL[f.dismissal.reason]}</span>}
      </>
    ),
  },
  { id: 'seen', header: 'First seen', className: 'c-meta', cell: (f) => <><span className="c-meta-label">first seen </span><Time iso={f.first_seen_at} /></> },
];

/** Which rows are ticked for a bulk triage, and how one is ticked or unticked. */
interface Selection {
  selected: ReadonlySet<string>;
  onToggle: (id: string) => void;
}

const selectColumn = ({ selected, onToggle }: Selection): Column<Finding> => ({
  id: 'select', header: <span className="visually-hidden">Select</span>, label: false, className: 'c-select',
  cell: (f) => <input type="checkbox" aria-label={`Select ${f.rule_id} ${locationOf(f)?.path ?? ''}`.trim()} checked={selected.has(f.id)} onChange={() => onToggle(f.id)} />,
});

/** Findings as rows: severity, rule and message, location, tool, category, state and age; with a tick box each when selectable. */
export function FindingRows({ rows, caption = 'Findings', selection }: { rows: Finding[]; caption?: string; selection?: Selection }) {
  const columns = selection ? [selectColumn(selection), ...COLUMNS] : COLUMNS;
  return <DataTable caption={caption} className="findings" columns={columns} rows={rows} rowKey={(f) => f.id} />;
}

function FindingTitle({ finding: f }: { finding: Finding }) {
  const { title, name } = ruleTitle(f);
  return (
    <>
      <span className="finding-rule" title={title === f.rule_id ? undefined : `Rule ${f.rule_id}`}>
        <Link to={`/findings/${f.id}`}>{title}</Link>
      </span>
      {name && <span className="finding-rule-name"> {name}</span>}
      <span className="cell-sub finding-message">{f.message}</span>
    </>
  );
}

function NoFindings({ filtered, status }: { filtered: boolean; status: ScanStatus }) {
  if (filtered) return <EmptyState title="No findings match these filters" />;
  if (status.state === 'never_scanned') return <EmptyState title="No scan results yet" />;
  if (isInventoryOnly(status)) {
    return (
      <EmptyState title="Inventory only">
        <p>This repository has sent SBOMs only: its {plural(status.components, 'component')} are not checked against advisories yet. Upload SARIF or a scanner&apos;s report to look for problems.</p>
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No open findings">
      <p>Every analysis of this repository came back clean in its latest upload.</p>
    </EmptyState>
  );
}

export function FindingsTable({ repoId, status }: { repoId: string; status: ScanStatus }) {
  const [query, setQuery] = useSearchState();
  const severity = query.get('severity') ?? '';
  const state = stateFilter(query.get('state'));
  const tool = query.get('tool') ?? '';
  const q = query.get('q') ?? '';
  const page = pageParam(query);
  const gitRef = query.get('ref') ?? '';
  const pullRequest = status.ref_kind === 'pull_request';
  const vsBase = pullRequest ? vsBaseFilter(query.get('vs_base')) : undefined;
  const tools = [...new Set(status.analyses.map((a) => a.tool))].sort();
  // One row per vulnerability: a pull request's comparison with its base lists findings only.
  const grouped = query.get('group') === 'vulnerability' && !vsBase;
  const findings = useFindings(repoId, {
    page, state: vsBase ? 'open' : state, severity: isSeverity(severity) ? severity : '', tool, q, ref: gitRef, ...(vsBase ? { vsBase } : {}),
  });

  const filtered = Boolean(severity || tool || q || state !== 'open' || vsBase);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) => setSelected((before) => {
    const after = new Set(before);
    if (!after.delete(id)) after.add(id);
    return after;
  });
  return (
    <section className="section" aria-label="Findings">
      <div className="toolbar filters" role="group" aria-label="Filter findings">
        {!grouped && <SearchInput label="Search findings" placeholder="Search rule, message or file" value={q} onChange={(value) => setQuery({ q: value, page: null })} />}
        <select className="input input-compact" aria-label="Severity" value={severity} onChange={(e) => setQuery({ severity: e.target.value, page: null })}>
          <option value="">All severities</option>
          {SEVERITIES.map((s) => <option key={s} value={s}>{SEVERITY_LABEL[s]}</option>)}
        </select>
        {pullRequest && (
          <select className="input input-compact" aria-label="Compared with the base" value={vsBase ?? ''} onChange={(e) => setQuery({ vs_base: e.target.value, state: null, page: null })}>
            <option value="">Everything open here</option>
            {VS_BASE.map((v) => <option key={v.value} value={v.value}>{v.label}</option>)}
          </select>
        )}
        <select className="input input-compact" aria-label="State" value={vsBase ? 'open' : state} disabled={Boolean(vsBase)} onChange={(e) => setQuery({ state: e.target.value === 'open' ? null : e.target.value, page: null })}>
          {STATES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
        </select>
        <select className="input input-compact" aria-label="Tool" value={tool} onChange={(e) => setQuery({ tool: e.target.value, page: null })}>
          <option value="">All tools</option>
          {tools.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
        {!vsBase && (
          <label className="checkbox-inline">
            <input type="checkbox" checked={grouped} onChange={(e) => setQuery({ group: e.target.checked ? 'vulnerability' : null, q: null, page: null })} />
            {' '}One row per vulnerability
          </label>
        )}
        {filtered && (
          <button type="button" className="button button-quiet button-small" onClick={() => setQuery({ q: null, severity: null, state: null, tool: null, vs_base: null, page: null })}>
            Clear filters
          </button>
        )}
      </div>
      {grouped ? (
        <VulnerabilityGroups
          repoId={repoId}
          filters={{ page, state, severity: isSeverity(severity) ? severity : '', tool, ref: gitRef }}
          onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })}
        />
      ) : (
      <Loaded query={findings} skeleton={<TableSkeleton label="Loading findings…" />}>
        {({ rows, info }) => rows.length === 0 ? (
          <NoFindings filtered={filtered} status={status} />
        ) : (
          <>
            {/* Only rows on screen count: ticks left on another page or filter are never triaged unseen. */}
            <BulkTriage repoId={repoId} ids={rows.filter((f) => selected.has(f.id)).map((f) => f.id)} onDone={() => setSelected(new Set())} />
            <FindingRows rows={rows} selection={{ selected, onToggle: toggle }} />
            <Pagination info={info} label="Findings" onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })} />
          </>
        )}
      </Loaded>
      )}
    </section>
  );
}
