import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { Repo, ScanSummary } from '../api/types';
import { SEVERITIES, SEVERITY_LABEL, type SeverityCounts as Counts } from '../lib/severity';
import { ACTIONS_HEADER, DataTable, type Column } from './DataTable';
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

const SEVERITY_COLUMNS = SEVERITIES.filter((s) => s !== 'info');

/**
 * Repositories with their scan status and open findings per severity. On a phone the severity
 * columns fold into one row of chips.
 */
export function RepoTable({ rows, caption, actions }: { rows: RepoRow[]; caption: string; actions?: (row: RepoRow) => ReactNode }) {
  const columns: Column<RepoRow>[] = [
    {
      id: 'name', header: 'Repository', rowHeader: true,
      cell: (row) => (
        <>
          <Link to={`/repos/${row.repo.id}`} className="strong-link">{row.repo.name}</Link>
          {row.repo.archived && <> <span className="tag" title="Archived on the forge: it takes no uploads">Archived</span></>}
          {row.repo.gone && <> <span className="tag" title="Deleted on the forge; its results stay until an owner deletes it here">Gone</span></>}
          {row.repo.full_name && row.repo.full_name !== row.repo.name && <span className="cell-sub">{row.repo.full_name}</span>}
          {row.orgName && <span className="cell-sub">{row.orgName}</span>}
        </>
      ),
    },
    { id: 'status', header: 'Status', cell: (row) => row.status ? <StatusPill state={row.status.state} /> : <span className="muted">Unknown</span> },
    ...SEVERITY_COLUMNS.map((s): Column<RepoRow> => ({
      id: s, header: SEVERITY_LABEL[s], className: 'num col-sev', label: false,
      cell: (row) => <SeverityCount severity={s} count={row.counts[s]} />,
    })),
    { id: 'open', header: 'Open findings', label: 'Open', className: 'col-mobile', cell: (row) => <SeverityCounts counts={row.counts} hideInfo /> },
    { id: 'last', header: 'Last scan', cell: (row) => <Time iso={row.status?.last_upload_at} fallback="Never" /> },
  ];
  if (actions) columns.push({ id: 'actions', header: ACTIONS_HEADER, className: 'cell-actions', cell: actions });
  return <DataTable caption={caption} columns={columns} rows={rows} rowKey={(row) => row.repo.id} />;
}
