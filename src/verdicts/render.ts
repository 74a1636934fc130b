import type { Severity } from '../domain/scan.js';
import { githubMarkdown, gitlabMarkdown } from '../markup.js';
import { COMMENT_MARKER } from './outbox.js';
import type { Verdict, VerdictFinding } from './types.js';

const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];
/** Findings named in a summary or comment; the rest are counted. */
const LISTED = 20;

export type Markup = 'github' | 'gitlab';

const HEADLINE = { success: 'passed', failure: 'failed', neutral: 'passed with warnings' } as const;

/** The check run's title (one line): the verdict and the new findings. */
export function titleOf(verdict: Verdict): string {
  if (verdict.state === 'in_progress') return 'Scanyard is processing the upload';
  if (!verdict.gate) return 'Scanyard could not judge this upload';
  const n = verdict.new_findings.total;
  return `Gate ${verdict.stale_base ? 'not comparable with the base' : HEADLINE[verdict.conclusion ?? 'neutral']}: ${n} new finding${n === 1 ? '' : 's'}`;
}

/**
 * The verdict in markdown: the gate, why the base could not be used, new findings by severity and the
 * first of them, new vulnerable components with their fixed versions, KEV, what was fixed, and where
 * to read more. Text from scanned code goes through the forge's escaper; everything else is ours.
 */
export function summaryOf(verdict: Verdict, baseUrl: string, markup: Markup, left?: number): string {
  const esc = markup === 'github' ? githubMarkdown : gitlabMarkdown;
  const link = `${baseUrl}${verdict.path}`;
  if (verdict.state === 'in_progress') return `Scanyard received the upload and is processing it. [Open in Scanyard](${link})`;
  const lines: string[] = [];
  if (verdict.stale_base) lines.push(`> **Note:** ${esc(verdict.stale_base)}`, '');
  const gate = verdict.gate;
  if (gate) {
    lines.push(`**Gate: ${gate.status}**${verdict.conclusion === 'neutral' && gate.status !== 'warn' ? ' (neutral: fail_on_new not applied)' : ''}`);
    for (const v of gate.violations) lines.push(`- ${v.level === 'fail' ? '❌' : '⚠️'} \`${v.rule}\`: ${esc(v.message)}`);
    lines.push('');
  }
  const { new_findings: found, fixed } = verdict;
  lines.push(`**New findings: ${found.total}**${found.total ? ` (${countsOf(found.by_severity)})` : ''}${found.kev ? `, ${found.kev} in the KEV catalogue` : ''}`);
  if (found.total > 0) {
    lines.push('', '| Severity | Finding | Where |', '| --- | --- | --- |');
    for (const f of found.items.slice(0, LISTED)) lines.push(`| ${f.severity}${f.kev ? ' (KEV)' : ''} | ${esc(f.rule_id)}: ${esc(oneLine(f.message))} | ${esc(where(f))} |`);
    if (found.total > LISTED) lines.push('', `…and ${found.total - LISTED} more.`);
  }
  const vulnerable = found.items.filter((f) => f.package_name);
  if (vulnerable.length) {
    lines.push('', '**New vulnerable components**');
    const seen = new Set<string>();
    for (const f of vulnerable) {
      const label = `${f.package_name}${f.package_version ? `@${f.package_version}` : ''}`;
      if (seen.has(label) || seen.size >= LISTED) continue;
      seen.add(label);
      lines.push(`- ${esc(label)}: ${f.fixed_versions.length ? `fixed in ${esc(f.fixed_versions.join(', '))}` : 'no fixed version known'}`);
    }
  }
  if (fixed.total) lines.push('', `**Fixed: ${fixed.total}** (${countsOf(fixed.by_severity)})`);
  const deps = verdict.sbom_diff;
  if (deps) {
    lines.push('', `**Dependencies:** ${deps.added} added, ${deps.removed} removed, ${deps.changed} changed, ${deps.licenses_changed} with licences changed; `
      + `vulnerabilities: ${deps.vulnerabilities_introduced} introduced, ${deps.vulnerabilities_fixed} fixed`);
  }
  if (left) lines.push('', `${left} finding${left === 1 ? '' : 's'} on changed lines not annotated (GitHub shows at most 1,000).`);
  lines.push('', `[Open this pull request in Scanyard](${link})`);
  return lines.join('\n');
}

/** The pull request comment: the summary under the hidden marker that finds it again. */
export function commentOf(verdict: Verdict, baseUrl: string, markup: Markup): string {
  return `${commentPrefix(verdict, markup)} ${titleOf(verdict)}\n\n${summaryOf(verdict, baseUrl, markup)}`;
}

function countsOf(counts: Record<Severity, number>): string {
  return SEVERITIES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`).join(', ');
}

function where(f: VerdictFinding): string {
  if (f.path) return `${f.path}${f.start_line !== null ? `:${f.start_line}` : ''}`;
  if (f.package_name) return `${f.package_name}${f.package_version ? `@${f.package_version}` : ''}`;
  return '';
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** How our comment starts: the marker, then its heading up to the verdict (so each category's comment is found again). */
export function commentPrefix(verdict: Verdict, markup: Markup): string {
  const category = verdict.upload.category;
  const name = category ? `Scanyard (${markup === 'github' ? githubMarkdown(category) : gitlabMarkdown(category)})` : 'Scanyard';
  return `${COMMENT_MARKER}\n### ${name}:`;
}
