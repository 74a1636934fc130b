import type { ImportReport } from './service.js';
import type { AdvisoryJson, AdvisorySourceJson, AdvisorySummaryJson, ImportReportJson, TopAdvisoryJson } from './schema.js';
import type { AdvisorySourceRow } from './sources-store.js';
import type { AdvisoryRow } from './store.js';
import { refKey, type RefKind } from '../domain/ref-name.js';

export function presentImportReport(report: ImportReport): ImportReportJson {
  return {
    added: report.added, updated: report.updated, withdrawn: report.withdrawn, unchanged: report.unchanged,
    rejected: report.rejected.map((r) => ({ file: r.file, reason: r.reason })), rejected_total: report.rejected_total, rematch_queued: report.rematch_queued,
    kev: report.kev, epss: report.epss,
  };
}

export function presentAdvisorySummary(row: AdvisoryRow): AdvisorySummaryJson {
  return {
    id: row.id, aliases: JSON.parse(row.aliases) as string[], summary: row.summary, severity: row.severity as 'high',
    cvss_score: row.cvss_score === null ? null : Number(row.cvss_score), modified: row.modified, published: row.published, withdrawn: row.withdrawn,
  };
}

/** The count comes back as a string from PostgreSQL's bigint. */
export function presentTopAdvisory(row: AdvisoryRow & { repositories: number | string }): TopAdvisoryJson {
  return { ...presentAdvisorySummary(row), repositories: Number(row.repositories) };
}

interface AdvisoryDetail {
  advisory: AdvisoryRow;
  packages: { ecosystem: string; name: string; ranges: string; versions: string }[];
  repositories: {
    repository_id: string; repository_name: string; org_id: string; org_name: string; ref_kind: string; ref_name: string;
    package_name: string | null; package_version: string | null; purl: string | null;
  }[];
}

export function presentAdvisory({ advisory, packages, repositories }: AdvisoryDetail): AdvisoryJson {
  return {
    ...presentAdvisorySummary(advisory),
    details: advisory.details,
    references: advisory.references ? (JSON.parse(advisory.references) as AdvisoryJson['references']) : [],
    affected: packages.map((p) => ({
      ecosystem: p.ecosystem, name: p.name,
      ranges: JSON.parse(p.ranges) as AdvisoryJson['affected'][number]['ranges'], versions: JSON.parse(p.versions) as string[],
    })),
    repositories: repositories.map((r) => ({
      id: r.repository_id, name: r.repository_name, org: { id: r.org_id, name: r.org_name },
      ref: refKey({ kind: r.ref_kind as RefKind, name: r.ref_name }),
      package: { name: r.package_name, version: r.package_version, purl: r.purl },
    })),
  };
}

/** A configured source never tried yet has no row: everything but its URL is empty. */
export function presentSource(row: Partial<AdvisorySourceRow> & { url: string }): AdvisorySourceJson {
  return {
    url: row.url, etag: row.etag ?? null, last_modified: row.last_modified ?? null, checked_at: row.checked_at ?? null,
    synced_at: row.synced_at ?? null, last_error: row.last_error ?? null,
    counts: { added: row.added ?? 0, updated: row.updated ?? 0, withdrawn: row.withdrawn ?? 0, unchanged: row.unchanged ?? 0, rejected: row.rejected ?? 0 },
  };
}
