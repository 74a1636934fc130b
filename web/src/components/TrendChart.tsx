import { formatDate, formatDateTime } from '../lib/format';

export interface TrendPoint {
  at: string;
  open: number;
}

const WIDTH = 420;
const HEIGHT = 150;
const PAD = { top: 12, right: 12, bottom: 24, left: 36 };

/** Open findings after each completed upload, oldest to newest, as a small line chart. */
export function TrendChart({ points }: { points: TrendPoint[] }) {
  if (points.length < 2) {
    return <p className="muted chart-empty">The trend appears once this repository has two completed uploads.</p>;
  }
  const max = niceMax(Math.max(...points.map((p) => p.open)));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (i / (points.length - 1)) * innerW;
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const line = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(p.open).toFixed(1)}`).join(' ');
  const area = `${line} L${x(points.length - 1).toFixed(1)},${y(0)} L${x(0).toFixed(1)},${y(0)} Z`;
  const first = points[0]!;
  const last = points[points.length - 1]!;
  // Uploads within one minute would label both ends alike: then the axis says it once.
  const start = axisLabel(first.at, last.at);
  const end = axisLabel(last.at, first.at);
  const label = `Open findings over ${points.length} uploads: from ${first.open} on ${formatDate(first.at)} to ${last.open} on ${formatDate(last.at)}`;
  return (
    <svg className="trend-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
      {[0, max / 2, max].map((v) => (
        <g key={v}>
          <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(v)} y2={y(v)} className="chart-grid" />
          <text x={PAD.left - 6} y={y(v)} textAnchor="end" dominantBaseline="central" className="chart-axis">{Math.round(v)}</text>
        </g>
      ))}
      <path d={area} className="trend-area" />
      <path d={line} className="trend-line" />
      {points.map((p, i) => (
        <circle key={`${p.at}-${i}`} cx={x(i)} cy={y(p.open)} r={3.5} className="trend-point">
          <title>{`${p.open} open after the upload of ${formatDateTime(p.at)}`}</title>
        </circle>
      ))}
      {start === end ? (
        <text x={PAD.left + innerW / 2} y={HEIGHT - 6} textAnchor="middle" className="chart-axis">{start}</text>
      ) : (
        <>
          <text x={PAD.left} y={HEIGHT - 6} className="chart-axis">{start}</text>
          <text x={WIDTH - PAD.right} y={HEIGHT - 6} textAnchor="end" className="chart-axis">{end}</text>
        </>
      )}
    </svg>
  );
}

/** The date, or the time as well when both ends of the axis fall on the same day. */
function axisLabel(at: string, other: string): string {
  return formatDate(at) === formatDate(other) ? formatDateTime(at) : formatDate(at);
}

function niceMax(value: number): number {
  if (value <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * magnitude >= value) ?? 10;
  return step * magnitude;
}
