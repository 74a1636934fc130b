import { SEVERITIES, SEVERITY_LABEL, type SeverityCounts as Counts } from '../lib/severity';

/** The open findings of a repository at a glance: one chip per severity, letter and count. */
export function SeverityCounts({ counts, hideInfo = false }: { counts: Counts; hideInfo?: boolean }) {
  const shown = hideInfo ? SEVERITIES.filter((s) => s !== 'info') : SEVERITIES;
  const label = shown.map((s) => `${counts[s]} ${s}`).join(', ');
  return (
    <span className="sev-counts" role="img" aria-label={label}>
      {shown.map((severity) => (
        <span
          key={severity}
          className={counts[severity] ? `sev sev-chip sev-${severity}` : 'sev-chip sev-chip-zero'}
          title={`${counts[severity]} ${SEVERITY_LABEL[severity].toLowerCase()}`}
        >
          <span className="sev-chip-letter">{SEVERITY_LABEL[severity][0]}</span>
          {counts[severity].toLocaleString()}
        </span>
      ))}
    </span>
  );
}
