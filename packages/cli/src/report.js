// @ts-check

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];

/**
 * @typedef {{ rule: string, level: string, message: string, count: number, examples: string[] }} Violation
 * @typedef {{ status: string, violations: Violation[] }} Gate
 * @typedef {{ write(text: string): unknown }} Output
 */

/** @param {Record<string, number> | undefined} counts */
function bySeverity(counts) {
  const parts = SEVERITIES.filter((s) => (counts?.[s] ?? 0) > 0).map((s) => `${counts?.[s]} ${s}`);
  return parts.length ? parts.join(', ') : 'none';
}

/**
 * What one upload changed and how its gate went.
 * @param {Output} out
 * @param {string} file
 * @param {{ status: string, error: string | null, counts: Record<string, number>, changes: Record<string, Record<string, number>> | null, gate: Gate | null }} upload
 */
export function printUpload(out, file, upload) {
  if (upload.status === 'failed') {
    out.write(`${file}: processing failed: ${upload.error ?? 'no reason given'}\n`);
    return;
  }
  const changes = upload.changes;
  out.write(`${file}: ${count(upload.counts.findings, 'finding')}, ${count(upload.counts.components, 'component')}\n`);
  out.write(`  new: ${bySeverity(changes?.new)}; reopened: ${bySeverity(changes?.reopened)}; fixed: ${bySeverity(changes?.fixed)}\n`);
  if (upload.gate) printViolations(out, upload.gate, '  ');
}

/** @param {number} n @param {string} noun */
function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** @param {Output} out @param {string} repo @param {Gate} gate */
export function printGate(out, repo, gate) {
  out.write(`${repo}:\n`);
  printViolations(out, gate, '  ');
}

/** @param {Output} out @param {Gate} gate @param {string} indent */
function printViolations(out, gate, indent) {
  out.write(`${indent}gate: ${gate.status}\n`);
  for (const v of gate.violations) {
    out.write(`${indent}  ${v.level === 'fail' ? '✗' : '!'} [${v.rule}] ${v.message}\n`);
    for (const example of v.examples) out.write(`${indent}      ${example}\n`);
    if (v.count > v.examples.length) out.write(`${indent}      … and ${v.count - v.examples.length} more\n`);
  }
}
