import { SEVERITY_LABEL, type Severity } from '../lib/severity';
import { Pill } from './Pill';

/** A severity in words on its tinted colour. */
export function SeverityBadge({ severity }: { severity: Severity }) {
  return <Pill className={`sev sev-${severity}`} mark="sev-mark">{SEVERITY_LABEL[severity]}</Pill>;
}

/** A count in a severity column: tinted when there is something to look at, muted at zero. */
export function SeverityCount({ severity, count }: { severity: Severity; count: number }) {
  // The column header names the severity for assistive technology; the tint is for the eye.
  if (count === 0) return <span className="sev-zero">0</span>;
  return <span className={`sev sev-count sev-${severity}`}>{count.toLocaleString()}</span>;
}
