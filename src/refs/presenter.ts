import type { ListedRef } from './service.js';
import { refKey, type RefKind, type RefName } from '../domain/ref-name.js';
import type { RefJson } from './schema.js';

export function presentRef(row: ListedRef): RefJson {
  const ref: RefName = { kind: row.kind as RefKind, name: row.name };
  return {
    ref: refKey(ref), kind: ref.kind, name: ref.name, default: row.is_default, base_ref: row.base_ref,
    state: row.state as 'complete', last_upload_at: row.last_upload_at, last_completed_at: row.last_completed_at,
    findings: {
      open: row.open_critical + row.open_high + row.open_medium + row.open_low + row.open_info,
      critical: row.open_critical, high: row.open_high, medium: row.open_medium, low: row.open_low, info: row.open_info,
      fixed: row.fixed_total,
    },
    components: row.components,
  };
}
