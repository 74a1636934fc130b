import type { MemberRow } from './members-store.js';
import type { MemberJson } from './members-schema.js';

export function presentMember(row: MemberRow): MemberJson {
  return { user_id: row.user_id, login: row.login, name: row.name, avatar_url: row.avatar_url, role: row.role, joined_at: row.joined_at, source: row.source };
}
