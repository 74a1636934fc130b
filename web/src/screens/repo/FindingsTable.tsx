import { api, call } from '../../api/client';
import { pageInfo } from '../../api/pagination';
import type { Finding, ScanStatus } from '../../api/types';
import { Pagination } from '../../components/Pagination';
import { SearchInput } from '../../components/SearchInput';
import { SeverityBadge } from '../../components/SeverityBadge';
import { EmptyState, Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { isSeverity, SEVERITIES, SEVERITY_LABEL } from '../../lib/severity';
import { useResource } from '../../lib/useResource';
import { useQueryState } from '../../router';

const PER_PAGE = 50;
const STATES = [
  { value: 'open', label: 'Open' },
  { value: 'fixed', label: 'Fixed' },
  { value: 'all', label: 'All states' },
] as const;
type StateFilter = (typeof STATES)[number]['value'];
const stateFilter = (value: string | null): StateFilter => STATES.find((s) => s.value === value)?.value ?? 'open';

export function FindingsTable({ repoId, status, version }: { repoId: string; status: ScanStatus; version: string }) {
  const [query, setQuery] = useQueryState();
  const severity = query.get('severity') ?? '';
  const state = stateFilter(query.get('state'));
  const tool = query.get('tool') ?? '';
  const q = query.get('q') ?? '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const tools = [...new Set(status.analyses.map((a) => a.tool))].sort();

  const findings = useResource(async (signal) => {
    const filters = {
      page,
      per_page: PER_PAGE,
      state,
      ...(isSeverity(severity) ? { severity } : {}),
      ...(tool ? { tool } : {}),
      ...(q ? { q } : {}),
    };
    const { data, response } = await call(api.GET('/api/v1/repos/{id}/findings', { params: { path: { id: repoId }, query: filters }, signal }));
    return { rows: data, info: pageInfo(response, PER_PAGE) };
  }, `${repoId}|${severity}|${state}|${tool}|${q}|${page}|${version}`);

  const filtered = Boolean(severity || tool || q || state !== 'open');
  return (
    <section className="section" aria-label="Findings">
      <div className="toolbar filters" role="group" aria-label="Filter findings">
        <SearchInput label="Search findings" placeholder="Search rule, message or file" value={q} onChange={(value) => setQuery({ q: value, page: null })} />
        <select className="input input-compact" aria-label="Severity" value={severity} onChange={(e) => setQuery({ severity: e.target.value, page: null })}>
          <option value="">All severities</option>
          {SEVERITIES.map((s) => <option key={s} value={s}>{SEVERITY_LABEL[s]}</option>)}
        </select>
        <select className="input input-compact" aria-label="State" value={state} onChange={(e) => setQuery({ state: e.target.value === 'open' ? null : e.target.value, page: null })}>
          {STATES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
        </select>
        <select className="input input-compact" aria-label="Tool" value={tool} onChange={(e) => setQuery({ tool: e.target.value, page: null })}>
          <option value="">All tools</option>
          {tools.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
        {filtered && (
          <button type="button" className="button button-quiet button-small" onClick={() => setQuery({ q: null, severity: null, state: null, tool: null, page: null })}>
            Clear filters
          </button>
        )}
      </div>
      <Loaded resource={findings} label="Loading findings…">
        {({ rows, info }) => rows.length === 0 ? (
          <EmptyState title={filtered ? 'No findings match these filters' : status.state === 'never_scanned' ? 'No scan results yet' : 'No open findings'}>
            {!filtered && status.state !== 'never_scanned' && <p>Every analysis of this repository came back clean in its latest upload.</p>}
          </EmptyState>
        ) : (
          <>
            <div className="table-wrap">
              <table className="table table-stack findings">
                <caption className="visually-hidden">Findings</caption>
                <thead>
                  <tr>
                    <th scope="col">Severity</th>
                    <th scope="col">Finding</th>
                    <th scope="col">Location</th>
                    <th scope="col">Tool</th>
                    <th scope="col">State</th>
                    <th scope="col">First seen</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((f) => (
                    <tr key={f.id}>
                      <td data-label="Severity" className="c-sev">{isSeverity(f.severity) ? <SeverityBadge severity={f.severity} /> : f.severity}</td>
                      <th scope="row" className="cell-title finding-title">
                        <span className="finding-rule">
                          {f.help_uri ? <a href={f.help_uri} target="_blank" rel="noreferrer noopener">{f.rule_id}</a> : f.rule_id}
                        </span>
                        {f.rule_name && f.rule_name !== f.rule_id && <span className="finding-rule-name"> {f.rule_name}</span>}
                        <span className="cell-sub finding-message">{f.message}</span>
                      </th>
                      <td data-label="Location" className="mono location c-loc">{location(f)}</td>
                      <td data-label="Tool" className="c-meta">{f.tool}</td>
                      <td data-label="State" className="c-meta"><span className={`state state-${f.state}`}>{f.state === 'open' && f.reopened_at ? 'reopened' : f.state}</span></td>
                      <td data-label="First seen" className="c-meta"><span className="c-meta-label">first seen </span><Time iso={f.first_seen_at} /></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pagination info={info} label="Findings" onPage={(p) => setQuery({ page: p === 1 ? null : p }, { push: true })} />
          </>
        )}
      </Loaded>
    </section>
  );
}

function location(f: Finding): string {
  if (f.file_path) {
    if (f.start_line === null) return f.file_path;
    const lines = f.end_line !== null && f.end_line !== f.start_line ? `${f.start_line}-${f.end_line}` : `${f.start_line}`;
    return `${f.file_path}:${lines}`;
  }
  if (f.package) return f.package.version ? `${f.package.name}@${f.package.version}` : f.package.name;
  return '—';
}
