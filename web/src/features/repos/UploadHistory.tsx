import { Link } from 'react-router';
import type { Upload } from '../../api/types';
import { DataTable, type Column } from '../../components/DataTable';
import { EmptyState } from '../../components/States';
import { StatusPill } from '../../components/StatusPill';
import { Time } from '../../components/Time';
import { formatBytes, formatDateTime, formatNumber } from '../../lib/format';
import { GatePill } from '../policies/Gate';

export const FORMAT_LABEL: Record<string, string> = { sarif: 'SARIF', cyclonedx: 'CycloneDX', spdx: 'SPDX', findings: 'Findings', vex: 'OpenVEX' };

const done = (u: Upload) => u.status === 'complete';

const COLUMNS: Column<Upload>[] = [
  {
    id: 'received', header: 'Received', rowHeader: true,
    cell: (u) => (
      <>
        <Link to={`/repos/${u.repository_id}/uploads/${u.id}`} className="strong-link" aria-label={`Upload of ${formatDateTime(u.created_at)}`}><Time iso={u.created_at} /></Link>
        <span className="cell-sub">{formatBytes(u.size_bytes)}</span>
      </>
    ),
  },
  { id: 'format', header: 'Format', cell: (u) => FORMAT_LABEL[u.format] ?? u.format },
  {
    id: 'tool', header: 'Tool',
    cell: (u) => (
      <span className="stack">
        {u.tools.length ? u.tools.join(', ') : <span className="muted">—</span>}
        {u.category && <span className="cell-sub">{u.category}</span>}
      </span>
    ),
  },
  { id: 'state', header: 'State', cell: (u) => <StatusPill state={u.status} /> },
  { id: 'new', header: 'New', className: 'num', cell: (u) => (done(u) ? <Delta n={u.counts.new} sign="+" /> : '—') },
  { id: 'reopened', header: 'Reopened', className: 'num', cell: (u) => (done(u) ? <Delta n={u.counts.reopened} sign="+" /> : '—') },
  { id: 'fixed', header: 'Fixed', className: 'num', cell: (u) => (done(u) ? <Delta n={u.counts.fixed} sign="−" /> : '—') },
  { id: 'findings', header: 'Findings', className: 'num', cell: (u) => (done(u) ? formatNumber(u.counts.findings) : '—') },
  { id: 'components', header: 'Components', className: 'num', cell: (u) => (done(u) ? formatNumber(u.counts.components) : '—') },
  { id: 'gate', header: 'Gate', cell: (u) => (u.gate ? <GatePill status={u.gate.status} /> : <span className="muted">—</span>) },
  {
    id: 'source', header: 'Source', className: 'mono source',
    // One element: on a phone the label and the value sit at the two ends, branch and SHA together.
    cell: (u) => (u.ref || u.commit_sha ? (
      <span className="source-ref">
        {u.ref && <span className="nowrap">{u.ref}</span>}
        {u.commit_sha && <span className="nowrap" title={u.commit_sha}>{u.commit_sha.slice(0, 10)}</span>}
        {u.vs_base && <span className="nowrap vs-base-counts">vs {u.base_ref ?? 'base'} <Delta n={u.vs_base.new} sign="+" /> <Delta n={u.vs_base.fixed} sign="−" /></span>}
      </span>
    ) : <span className="muted">—</span>),
  },
];

/** Every upload, newest first: what came in, what it changed, and why a failed one failed. */
export function UploadHistory({ uploads, total }: { uploads: Upload[]; total: number }) {
  if (uploads.length === 0) {
    return <EmptyState title="No uploads yet"><p>Uploads from CI appear here as they arrive.</p></EmptyState>;
  }
  return (
    <section className="section" aria-label="Uploads">
      <DataTable
        caption="Uploads, newest first"
        className="uploads"
        columns={COLUMNS}
        rows={uploads}
        rowKey={(u) => u.id}
        detail={(u) => u.status === 'failed' && (
          <span className="error-text"><strong>Why it failed:</strong> {u.error ?? 'No reason was recorded.'}</span>
        )}
      />
      {total > uploads.length && <p className="hint">Showing the latest {uploads.length} of {formatNumber(total)} uploads.</p>}
    </section>
  );
}

export function Delta({ n, sign }: { n: number; sign: '+' | '−' }) {
  if (n === 0) return <span className="muted">0</span>;
  return <span className={sign === '+' ? 'delta-up' : 'delta-down'}>{sign}{formatNumber(n)}</span>;
}
