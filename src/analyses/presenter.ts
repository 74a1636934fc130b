import type { AnalysisWithRef } from './store.js';
import type { AnalysisJson } from './schema.js';

export function presentAnalysis(row: AnalysisWithRef): AnalysisJson {
  return {
    id: row.id, repository_id: row.repository_id, ref: row.ref_name, ref_kind: row.ref_kind as AnalysisJson['ref_kind'], tool: row.tool, tool_version: row.tool_version, category: row.category,
    format: row.format, last_upload_id: row.last_upload_id, completed_at: row.completed_at,
    findings: {
      open: row.open_critical + row.open_high + row.open_medium + row.open_low + row.open_info,
      critical: row.open_critical, high: row.open_high, medium: row.open_medium, low: row.open_low, info: row.open_info,
      fixed: row.fixed_total,
    },
    components: row.components,
  };
}
