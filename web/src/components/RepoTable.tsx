import type { ReactNode } from 'react';
import type { Repo, ScanSummary } from '../api/types';
import { Link } from '../router';
import { SEVERITIES, SEVERITY_LABEL, type SeverityCounts as Counts } from '../lib/severity';
import { SeverityCount } from './SeverityBadge';
import { SeverityCounts } from './SeverityCounts';
import { StatusPill } from './StatusPill';
import { Time } from './Time';

export interface RepoRow {
  repo: Repo;
  orgName?: string;
  status: ScanSummary | null;
  counts: Counts;
}

const COLUMNS = SEVERITIES.filter((s) => s !== 'info');

/**
 * Repositories with their scan status and open findings per severity. On a phone the severity
 * columns fold into one row of chips.
 */
export function RepoTable({ rows, caption, actions }: { rows: RepoRow[]; caption: string; actions?: (row: RepoRow) => ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="table table-stack">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Repository</th>
            <th scope="col">Status</th>
            {COLUMNS.map((s) => <th key={s} scope="col" className="num col-sev">{SEVERITY_LABEL[s]}</th>)}
            <th scope="col" className="col-mobile">Open findings</th>
            <th scope="col">Last scan</th>
            {actions && <th scope="col"><span className="visually-hidden">Actions</span></th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.repo.id}>
              <th scope="row" className="cell-title">
                <Link to={`/repos/${row.repo.id}`} className="strong-link">{row.repo.name}</Link>
                {row.orgName && <span className="cell-sub">{row.orgName}</span>}
              </th>
              <td data-label="Status">
                {row.status ? <StatusPill state={row.status.state} /> : <span className="muted">Unknown</span>}
              </td>
              {COLUMNS.map((s) => (
                <td key={s} className="num col-sev"><SeverityCount severity={s} count={row.counts[s]} /></td>
              ))}
              <td className="col-mobile" data-label="Open"><SeverityCounts counts={row.counts} hideInfo /></td>
              <td data-label="Last scan"><Time iso={row.status?.last_upload_at} fallback="Never" /></td>
              {actions && <td className="cell-actions">{actions(row)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
