import { SEVERITIES, type Severity } from '../../domain/scan.js';
import type { SeverityCounts } from '../../domain/changes.js';
import type { EventPayload } from '../events.js';
import type { RenderContext } from './types.js';

/**
 * What a chat message says, whatever the chat: shared by the readable formats. Plain text, much of it
 * from the scanned code and the names people gave: each format escapes it for its own markup.
 */
export interface Summary {
  title: string;
  text: string;
  /** Counts by severity, most severe first; absent when the event has none. */
  severities: { severity: Severity; count: number }[] | null;
  /** A few findings, one line each. */
  findings: string[];
  link: string;
}

const LISTED_IN_CHAT = 5;

export function summarize(payload: EventPayload, context: RenderContext): Summary {
  const where = payload.repository ? `${payload.org.name}/${payload.repository.name}` : payload.org.name;
  const data = payload.data as Record<string, unknown> & { counts?: Record<string, number>; error?: string };
  const counts = payload.findings?.by_severity ?? (data.open_by_severity as SeverityCounts | undefined) ?? null;
  let title: string;
  let text: string;
  switch (payload.event) {
    case 'ping':
      title = `Scanyard webhook set up for ${where}`;
      text = 'Deliveries to this address are working.';
      break;
    case 'upload.completed': {
      const c = data.counts ?? {};
      title = `Upload processed in ${where}`;
      text = `${c.new ?? 0} new, ${c.reopened ?? 0} reopened, ${c.fixed ?? 0} fixed, ${c.unchanged ?? 0} unchanged findings. Open findings by severity:`;
      break;
    }
    case 'upload.failed':
      title = `Upload failed in ${where}`;
      text = String(data.error ?? 'The upload could not be processed.');
      break;
    case 'gate.failed': {
      const gate = data.gate as { violations?: { message: string }[] } | undefined;
      title = `Gate failed in ${where}`;
      text = (gate?.violations ?? []).map((v) => v.message).join(' ') || 'The upload failed its policy.';
      break;
    }
    case 'advisory.matched': {
      const advisories = (data.advisories as string[] | undefined) ?? [];
      title = `${payload.findings?.total ?? 0} findings opened by advisories in ${where}`;
      text = `Matched without an upload: ${advisories.slice(0, LISTED_IN_CHAT).join(', ')}${advisories.length > LISTED_IN_CHAT ? ', …' : ''}. By severity:`;
      break;
    }
    case 'findings.new':
      title = `${payload.findings?.total ?? 0} new findings in ${where}`;
      text = 'New and reopened findings by severity:';
      break;
    default:
      title = `${payload.event} in ${where}`;
      text = payload.findings ? `${payload.findings.total} findings by severity:` : '';
  }
  const items = payload.findings?.items ?? [];
  const findings = items.slice(0, LISTED_IN_CHAT).map((f) => {
    const place = f.file_path ? ` (${f.file_path}${f.start_line ? `:${f.start_line}` : ''})`
      : f.package_name ? ` (${f.package_name}${f.package_version ? `@${f.package_version}` : ''})` : '';
    return `[${f.severity}] ${f.rule_id}: ${f.message}${place}`;
  });
  const more = (payload.findings?.total ?? 0) - findings.length;
  if (findings.length && more > 0) findings.push(`and ${more} more`);
  return {
    title, text, findings,
    severities: counts ? SEVERITIES.map((severity) => ({ severity, count: counts[severity] ?? 0 })) : null,
    link: `${context.baseUrl}${payload.path}`,
  };
}
