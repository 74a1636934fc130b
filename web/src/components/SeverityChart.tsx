import { SEVERITIES, SEVERITY_LABEL, type SeverityCounts } from '../lib/severity';

const ROW = 30;
const LABEL_WIDTH = 72;
const COUNT_WIDTH = 56;
const WIDTH = 360;
const BAR_AREA = WIDTH - LABEL_WIDTH - COUNT_WIDTH;

/** Open findings by severity as horizontal bars; the counts are written out, not only drawn. */
export function SeverityChart({ counts }: { counts: SeverityCounts }) {
  const max = Math.max(1, ...SEVERITIES.map((s) => counts[s]));
  const height = SEVERITIES.length * ROW;
  const summary = SEVERITIES.map((s) => `${counts[s]} ${s}`).join(', ');
  return (
    <svg className="severity-chart" viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`Open findings by severity: ${summary}`}>
      {SEVERITIES.map((severity, i) => {
        const y = i * ROW;
        const count = counts[severity];
        const width = count === 0 ? 0 : Math.max(3, (count / max) * BAR_AREA);
        return (
          <g key={severity} transform={`translate(0 ${y})`}>
            <text x={0} y={ROW / 2} dominantBaseline="central" className="chart-label">{SEVERITY_LABEL[severity]}</text>
            <rect x={LABEL_WIDTH} y={7} width={BAR_AREA} height={ROW - 14} rx={3} className="chart-track" />
            {width > 0 && <rect x={LABEL_WIDTH} y={7} width={width} height={ROW - 14} rx={3} className={`chart-bar bar-${severity}`} />}
            <text x={WIDTH} y={ROW / 2} dominantBaseline="central" textAnchor="end" className="chart-value">{count.toLocaleString()}</text>
          </g>
        );
      })}
    </svg>
  );
}
