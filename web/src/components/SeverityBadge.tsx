import { SEVERITY_LABEL, type Severity } from '../lib/severity';

/** A severity in words on its tinted colour; the word carries the meaning, the colour helps scan. */
export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <span className={`sev sev-${severity}`}>
      <span className="sev-mark" aria-hidden="true" />
      {SEVERITY_LABEL[severity]}
    </span>
  );
}

/** A count in a severity column: tinted when there is something to look at, muted at zero. */
export function SeverityCount({ severity, count }: { severity: Severity; count: number }) {
  // The column header names the severity for assistive technology; the tint is for the eye.
  if (count === 0) return <span className="sev-zero">0</span>;
  return <span className={`sev sev-count sev-${severity}`}>{count.toLocaleString()}</span>;
}
