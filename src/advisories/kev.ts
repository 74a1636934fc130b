import type { KevEntriesTable } from '../db/schema.js';
import { CVE } from './epss.js';

/**
 * The CISA Known Exploited Vulnerabilities catalogue (known_exploited_vulnerabilities.json): an
 * object with `catalogVersion` and a `vulnerabilities` array, read an entry at a time. Pure.
 */
/** A catalogue entry is stored as it is read: one row of kev_entries. */
export type KevEntry = Omit<KevEntriesTable, 'imported_at'>;

/** One entry of `vulnerabilities`, or why it is refused. */
export function kevEntry(item: unknown): KevEntry | { reason: string } {
  const v = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  const cve = typeof v.cveID === 'string' ? v.cveID.trim().toUpperCase() : '';
  if (!CVE.test(cve)) return { reason: 'cveID is not a CVE id' };
  return {
    cve,
    vendor_project: text(v.vendorProject) ?? '',
    product: text(v.product) ?? '',
    vulnerability_name: text(v.vulnerabilityName) ?? '',
    date_added: text(v.dateAdded) ?? '',
    due_date: text(v.dueDate),
    known_ransomware_campaign_use: text(v.knownRansomwareCampaignUse),
  };
}

/** PostgreSQL text cannot hold NUL (SQLite can): dropped, as from scan uploads. */
function text(value: unknown): string | null {
  return typeof value === 'string' ? value.replaceAll('\u0000', '') : null;
}
