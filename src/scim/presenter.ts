import type { ScimUserRow } from '../db/schema.js';
import { GROUP_SCHEMA, USER_SCHEMA } from './schema.js';
import type { ScimGroupMember, ScimGroupRow } from './store.js';

/** A User resource (RFC 7643 4.1) as this service keeps it. */
export function presentUser(row: ScimUserRow, baseUrl: string) {
  return {
    schemas: [USER_SCHEMA],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    userName: row.user_name,
    ...(row.display_name !== null ? { displayName: row.display_name, name: { formatted: row.display_name } } : {}),
    ...(row.email !== null ? { emails: [{ value: row.email, type: 'work', primary: true }] } : {}),
    active: row.active === 1,
    meta: { resourceType: 'User', created: row.created_at, lastModified: row.updated_at, location: `${baseUrl}/scim/v2/Users/${row.id}` },
  };
}

/**
 * A Group resource (RFC 7643 4.2): the team's name is its displayName, its members the SCIM users
 * the IdP put in it (whether or not they are linked to an account yet). `members` null: left out, as
 * `excludedAttributes=members` asks (Entra ID asks so for every group it reads).
 */
export function presentGroup(row: ScimGroupRow, members: ScimGroupMember[] | null, baseUrl: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id !== null ? { externalId: row.external_id } : {}),
    displayName: row.name,
    ...(members !== null ? {
      members: members.map((m) => ({ value: m.scim_user_id, display: m.user_name, $ref: `${baseUrl}/scim/v2/Users/${m.scim_user_id}` })),
    } : {}),
    meta: { resourceType: 'Group', created: row.created_at, lastModified: row.updated_at, location: `${baseUrl}/scim/v2/Groups/${row.id}` },
  };
}
