import { messageOf } from '../../api/client';
import type { ScanStatus, Upload } from '../../api/types';
import { Card } from '../../components/Card';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SeverityChart } from '../../components/SeverityChart';
import { Time } from '../../components/Time';
import { formatNumber } from '../../lib/format';
import { countsOf } from '../dashboard/overview';
import { useAnalyses, useRemoveAnalysis } from './api';
import { RepoTrend } from '../metrics/RepoTrend';

/** Where the repository stands: open findings by severity, their trend, and what was scanned. */
export function RepoOverview({ repoId, status, uploads, canManage }: { repoId: string; status: ScanStatus; uploads: Upload[]; canManage: boolean }) {
  const latest = uploads[0];
  return (
    <div className="overview-grid">
      <Card id="open-title" title="Open findings" aside={<span className="big-number">{formatNumber(status.findings.open)}</span>}>
        <SeverityChart counts={countsOf(status)} />
        {status.vulnerabilities.open > 0 && (
          <p className="hint">
            {formatNumber(status.vulnerabilities.open)} distinct {status.vulnerabilities.open === 1 ? 'vulnerability' : 'vulnerabilities'}: findings
            that name the same vulnerability in the same package, by any of its ids, count once.
          </p>
        )}
      </Card>
      <Card id="trend-title" title="Trend" aside={<span className="muted">open findings per day</span>}>
        <RepoTrend repoId={repoId} />
      </Card>
      <Card id="scan-title" title="Scans">
        <dl className="facts">
          <div><dt>Last completed</dt><dd><Time iso={status.last_completed_at} fallback="never" /></dd></div>
          <div><dt>Components</dt><dd>{formatNumber(status.components)}</dd></div>
          {latest?.status === 'failed' && (
            <div className="fact-error"><dt>Last upload failed</dt><dd>{latest.error ?? 'No reason was recorded.'}</dd></div>
          )}
        </dl>
        {status.analyses.length > 0 && <Analyses repoId={repoId} status={status} canManage={canManage} />}
      </Card>
    </div>
  );
}

/** Each tool's results on the ref shown; owners may remove a wrong one (an upload into the wrong repository). */
function Analyses({ repoId, status, canManage }: { repoId: string; status: ScanStatus; canManage: boolean }) {
  const analyses = useAnalyses(repoId, canManage);
  const remove = useRemoveAnalysis(repoId);
  const idOf = (a: ScanStatus['analyses'][number]) =>
    analyses.data?.find((b) => b.ref === status.ref && b.tool === a.tool && b.category === a.category && b.format === a.format)?.id;
  return (
    <>
      <ul className="analyses" aria-label="Analyses">
        {status.analyses.map((a) => {
          const id = idOf(a);
          const name = a.category ? `${a.tool} (${a.category})` : a.tool;
          return (
            <li key={`${a.tool}|${a.category}|${a.format}`}>
              <span className="analysis-name">
                <span className="analysis-tool">{a.tool}</span>
                {a.category && <span className="analysis-category">{a.category}</span>}
              </span>
              <span className="analysis-count">{formatNumber(a.open_findings)} open</span>
              {id && <span className="analysis-actions"><ConfirmButton label="Remove" confirmLabel={`Remove ${name}`} onConfirm={() => remove.mutateAsync(id)} /></span>}
            </li>
          );
        })}
      </ul>
      {remove.isError && <div className="notice notice-error" role="alert">The analysis was not removed: {messageOf(remove.error)}</div>}
    </>
  );
}
