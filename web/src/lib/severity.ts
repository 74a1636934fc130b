export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const SEVERITY_LABEL: Record<Severity, string> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
};

export type SeverityCounts = Record<Severity, number>;

export const NO_FINDINGS: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };

export function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}

/** Orders repositories by what needs attention first: most critical, then high, and so on down. */
export function compareBySeverity(a: SeverityCounts, b: SeverityCounts): number {
  for (const severity of SEVERITIES) {
    if (a[severity] !== b[severity]) return b[severity] - a[severity];
  }
  return 0;
}
