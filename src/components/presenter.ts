import { refKey, type RefKind } from '../domain/ref-name.js';
import type { ComponentAcrossJson } from './schema.js';
import type { ComponentAcrossRow } from './store.js';

export function presentComponentUse(row: ComponentAcrossRow): ComponentAcrossJson {
  return {
    id: row.id, name: row.name, version: row.version, purl: row.purl, type: row.type, tool: row.tool,
    repository: { id: row.repository_id, name: row.repository_name }, org: { id: row.org_id, name: row.org_name },
    ref: refKey({ kind: row.ref_kind as RefKind, name: row.ref_name }),
  };
}
