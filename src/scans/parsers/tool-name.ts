/**
 * One spelling per tool, so uploads of one scanner meet in one analysis whatever its output calls
 * itself: Trivy writes "Trivy" in SARIF and "trivy" in its SBOMs; Semgrep calls itself "Semgrep OSS"
 * in SARIF and "Semgrep" in its own JSON. Keys are lower case; tools not listed keep their own name.
 */
const CANONICAL = new Map([
  ['trivy', 'Trivy'],
  ['semgrep', 'Semgrep'],
  ['semgrep oss', 'Semgrep'],
  ['grype', 'Grype'],
  ['gitleaks', 'Gitleaks'],
  ['kics', 'KICS'],
  ['osv-scanner', 'OSV-Scanner'],
]);

export function canonicalToolName(name: string): string {
  const trimmed = name.trim();
  return CANONICAL.get(trimmed.toLowerCase()) ?? trimmed;
}
