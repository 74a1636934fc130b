import type { ScanStatus, Upload } from '../../api/types';
import { SeverityChart } from '../../components/SeverityChart';
import { Time } from '../../components/Time';
import { TrendChart } from '../../components/TrendChart';
import { formatNumber } from '../../lib/format';
import { countsOf } from '../dashboard/overview';
import { openFindingsTrend } from './trend';

/** Where the repository stands: open findings by severity, their trend, and what was scanned. */
export function RepoOverview({ status, uploads }: { status: ScanStatus; uploads: Upload[] }) {
  const latest = uploads[0];
  return (
    <div className="overview-grid">
      <section className="card" aria-labelledby="open-title">
        <div className="card-head">
          <h2 id="open-title" className="card-title">Open findings</h2>
          <span className="big-number">{formatNumber(status.findings.open)}</span>
        </div>
        <SeverityChart counts={countsOf(status)} />
      </section>
      <section className="card" aria-labelledby="trend-title">
        <div className="card-head">
          <h2 id="trend-title" className="card-title">Trend</h2>
          <span className="muted">open findings per upload</span>
        </div>
        <TrendChart points={openFindingsTrend(uploads)} />
      </section>
      <section className="card" aria-labelledby="scan-title">
        <div className="card-head">
          <h2 id="scan-title" className="card-title">Scans</h2>
        </div>
        <dl className="facts">
          <div><dt>Last completed</dt><dd><Time iso={status.last_completed_at} fallback="never" /></dd></div>
          <div><dt>Components</dt><dd>{formatNumber(status.components)}</dd></div>
          {latest?.status === 'failed' && (
            <div className="fact-error"><dt>Last upload failed</dt><dd>{latest.error ?? 'No reason was recorded.'}</dd></div>
          )}
        </dl>
        {status.analyses.length > 0 && (
          <ul className="analyses" aria-label="Analyses">
            {status.analyses.map((a) => (
              <li key={`${a.tool}|${a.category}`}>
                <span className="analysis-tool">{a.tool}</span>
                {a.category && <span className="muted"> · {a.category}</span>}
                <span className="analysis-count">{formatNumber(a.open_findings)} open</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
