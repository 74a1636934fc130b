import type { Finding } from '../../api/types';

/** Snyk writes the severity into its rule titles ("High severity - …"); the badge already says it. */
const SEVERITY_PREFIX = /^(critical|high|medium|low|info)\s+severity\s*[-–:]\s*/i;

/** Rule ids that name nothing a reader knows: UUIDs (KICS) and long hex digests. */
const OPAQUE_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,})$/i;

/**
 * How a finding's rule reads in the list: its id where the id means something (CVE-2021-44228,
 * js/xss), its SARIF rule name where the id is opaque, and the name beside the id otherwise.
 */
export function ruleTitle(f: Pick<Finding, 'rule_id' | 'rule_name'>): { title: string; name: string | null } {
  const name = f.rule_name ? f.rule_name.replace(SEVERITY_PREFIX, '').trim() || null : null;
  if (name && OPAQUE_ID.test(f.rule_id)) return { title: name, name: null };
  return { title: f.rule_id, name: name && name !== f.rule_id ? name : null };
}

/** `path/to/file.js:12-14`, a package `name@version`, or null. */
export function locationOf(f: Finding): { path: string; lines: string | null } | null {
  if (f.file_path) {
    if (f.start_line === null) return { path: f.file_path, lines: null };
    const lines = f.end_line !== null && f.end_line !== f.start_line ? `${f.start_line}-${f.end_line}` : `${f.start_line}`;
    return { path: f.file_path, lines };
  }
  if (f.package) return { path: f.package.version ? `${f.package.name}@${f.package.version}` : f.package.name, lines: null };
  return null;
}
