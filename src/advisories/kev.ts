import type { KevEntriesTable } from '../db/schema.js';

/**
 * The CISA Known Exploited Vulnerabilities catalogue (known_exploited_vulnerabilities.json). Pure.
 * Told apart from OSV by its shape: an object with `catalogVersion` and a `vulnerabilities` array.
 */
/** A catalogue entry is stored as it is read: one row of kev_entries. */
export type KevEntry = KevEntriesTable;

export interface KevCatalogue {
  version: string;
  entries: KevEntry[];
  /** Entries refused, each with why (by index in `vulnerabilities`). */
  rejected: { index: number; reason: string }[];
}

const CVE = /^CVE-\d{4}-\d{4,}$/;

export function isKevCatalogue(value: unknown): value is { catalogVersion: unknown; vulnerabilities: unknown[] } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    && 'catalogVersion' in value && Array.isArray((value as { vulnerabilities?: unknown }).vulnerabilities);
}

export function parseKev(value: { catalogVersion: unknown; vulnerabilities: unknown[] }): KevCatalogue {
  const entries = new Map<string, KevEntry>();
  const rejected: KevCatalogue['rejected'] = [];
  value.vulnerabilities.forEach((item, index) => {
    const v = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const cve = typeof v.cveID === 'string' ? v.cveID.trim().toUpperCase() : '';
    if (!CVE.test(cve)) {
      rejected.push({ index, reason: 'cveID is not a CVE id' });
      return;
    }
    entries.set(cve, {
      cve,
      vendor_project: text(v.vendorProject) ?? '',
      product: text(v.product) ?? '',
      vulnerability_name: text(v.vulnerabilityName) ?? '',
      date_added: text(v.dateAdded) ?? '',
      due_date: text(v.dueDate),
      known_ransomware_campaign_use: text(v.knownRansomwareCampaignUse),
    });
  });
  return { version: String(value.catalogVersion), entries: [...entries.values()], rejected };
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
