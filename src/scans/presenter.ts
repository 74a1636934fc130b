import type { UploadRow } from '../db/schema.js';
import type { UploadJson } from './schema.js';
import { refKey, type RefKind } from '../domain/ref-name.js';

export function presentUpload(row: UploadRow): UploadJson {
  return {
    id: row.id, repository_id: row.repository_id, format: row.format, status: row.status as 'pending',
    sha256: row.sha256, size_bytes: Number(row.size_bytes), category: row.category, commit_sha: row.commit_sha, head_sha: row.head_sha, base_sha: row.base_sha,
    ref: refKey({ kind: row.ref_kind as RefKind, name: row.ref_name }), ref_kind: row.ref_kind as RefKind, base_ref: row.base_ref,
    vs_base: row.vs_base_new === null || row.vs_base_fixed === null ? null : { new: row.vs_base_new, fixed: row.vs_base_fixed },
    tools: row.tools ? (JSON.parse(row.tools) as string[]) : [], error: row.error,
    counts: {
      new: row.new_count, fixed: row.fixed_count, reopened: row.reopened_count, unchanged: row.unchanged_count,
      findings: row.findings_count, components: row.components_count,
    },
    components_unchecked: row.components_unchecked,
    changes: row.changes ? (JSON.parse(row.changes) as UploadJson['changes']) : null,
    gate: row.gate ? (JSON.parse(row.gate) as UploadJson['gate']) : null,
    created_at: row.created_at, started_at: row.started_at, completed_at: row.completed_at,
    ci_token_id: row.ci_token_id,
  };
}
