import type { Upload } from '../../api/types';
import { EmptyState } from '../../components/States';
import { StatusPill } from '../../components/StatusPill';
import { Time } from '../../components/Time';
import { formatBytes, formatNumber } from '../../lib/format';

const FORMAT_LABEL: Record<string, string> = { sarif: 'SARIF', cyclonedx: 'CycloneDX', spdx: 'SPDX', findings: 'Findings' };

/** Every upload, newest first: what came in, what it changed, and why a failed one failed. */
export function UploadHistory({ uploads, total }: { uploads: Upload[]; total: number }) {
  if (uploads.length === 0) {
    return <EmptyState title="No uploads yet"><p>Uploads from CI appear here as they arrive.</p></EmptyState>;
  }
  return (
    <section className="section" aria-label="Uploads">
      <div className="table-wrap">
        <table className="table table-stack uploads">
          <caption className="visually-hidden">Uploads, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Format</th>
              <th scope="col">Tool</th>
              <th scope="col">State</th>
              <th scope="col" className="num">New</th>
              <th scope="col" className="num">Fixed</th>
              <th scope="col" className="num">Findings</th>
              <th scope="col" className="num">Components</th>
              <th scope="col">Source</th>
            </tr>
          </thead>
          <tbody>
            {uploads.map((u) => (
              <UploadRow key={u.id} upload={u} />
            ))}
          </tbody>
        </table>
      </div>
      {total > uploads.length && <p className="hint">Showing the latest {uploads.length} of {formatNumber(total)} uploads.</p>}
    </section>
  );
}

function UploadRow({ upload: u }: { upload: Upload }) {
  const done = u.status === 'complete';
  return (
    <>
      <tr className={u.status === 'failed' ? 'row-failed' : undefined}>
        <th scope="row" className="cell-title"><Time iso={u.created_at} /><span className="cell-sub">{formatBytes(u.size_bytes)}</span></th>
        <td data-label="Format">{FORMAT_LABEL[u.format] ?? u.format}</td>
        <td data-label="Tool">
          {u.tools.length ? u.tools.join(', ') : <span className="muted">—</span>}
          {u.category && <span className="cell-sub">{u.category}</span>}
        </td>
        <td data-label="State"><StatusPill state={u.status} /></td>
        <td data-label="New" className="num">{done ? <Delta n={u.counts.new + u.counts.reopened} sign="+" /> : '—'}</td>
        <td data-label="Fixed" className="num">{done ? <Delta n={u.counts.fixed} sign="−" /> : '—'}</td>
        <td data-label="Findings" className="num">{done ? formatNumber(u.counts.findings) : '—'}</td>
        <td data-label="Components" className="num">{done ? formatNumber(u.counts.components) : '—'}</td>
        <td data-label="Source" className="mono source">
          {u.ref && <span>{u.ref}</span>}
          {u.commit_sha && <span title={u.commit_sha}>{u.commit_sha.slice(0, 10)}</span>}
          {!u.ref && !u.commit_sha && <span className="muted">—</span>}
        </td>
      </tr>
      {u.status === 'failed' && (
        <tr className="row-error">
          <td colSpan={9}>
            <span className="error-text"><strong>Why it failed:</strong> {u.error ?? 'No reason was recorded.'}</span>
          </td>
        </tr>
      )}
    </>
  );
}

function Delta({ n, sign }: { n: number; sign: '+' | '−' }) {
  if (n === 0) return <span className="muted">0</span>;
  return <span className={sign === '+' ? 'delta-up' : 'delta-down'}>{sign}{formatNumber(n)}</span>;
}
