import type { ImportReport } from './service.js';
import type { ImportReportJson } from './schema.js';

export function presentImportReport(report: ImportReport): ImportReportJson {
  return {
    added: report.added, updated: report.updated, withdrawn: report.withdrawn, unchanged: report.unchanged,
    rejected: report.rejected.map((r) => ({ file: r.file, reason: r.reason })), rematch_queued: report.rematch_queued,
  };
}
