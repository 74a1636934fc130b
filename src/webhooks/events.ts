import type { Severity } from '../domain/scan.js';
import type { SeverityCounts } from '../domain/changes.js';

/** What a hook may subscribe to; `ping` is sent once to every new hook and cannot be chosen. */
export const WEBHOOK_EVENTS = ['upload.completed', 'upload.failed', 'findings.new', 'gate.failed', 'advisory.matched', 'finding.dismissed'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];
export type DeliveredEventName = WebhookEventName | 'ping';

/** A finding as a hook sees it. */
export interface FindingSummary {
  id: string;
  rule_id: string;
  message: string;
  severity: Severity;
  file_path: string | null;
  start_line: number | null;
  package_name: string | null;
  package_version: string | null;
}

/**
 * The JSON stored with each delivery and sent as-is in the `json` format: what happened, where, and
 * (finding events) the findings at or above the hook's min_severity, at most 100, with their total.
 */
export interface EventPayload {
  event: DeliveredEventName;
  created_at: string;
  org: { id: string; name: string };
  repository: { id: string; name: string } | null;
  /** The page in Scanyard this event is about, under SERVICE_BASE_URL (formats send it absolute). */
  path: string;
  data: Record<string, unknown>;
  findings?: { total: number; by_severity: SeverityCounts; items: FindingSummary[] };
}
