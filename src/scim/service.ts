import { randomBytes } from 'node:crypto';
import type { Actor } from '../domain/actor.js';
import type { ScimUserRow } from '../db/schema.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { AuditStore } from '../audit/store.js';
import { hashKey } from '../auth/key-format.js';
import type { Policy } from '../policy.js';
import type { ScimFilter, ScimStore } from './store.js';

export type { ScimFilter } from './store.js';

/** An error in the shape RFC 7644 3.12 gives (status, detail, scimType): the routes write it as SCIM JSON. */
export class ScimError extends Error {
  override readonly name = 'ScimError';
  constructor(readonly status: number, readonly detail: string, readonly scimType?: string) {
    super(detail);
  }
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of a User this service keeps (RFC 7643 4.1). */
interface UserFields { user_name: string; external_id: string | null; display_name: string | null; email: string | null; active: number }

export const MAX_PAGE = 200;

export function scimService(store: ScimStore, policy: Policy, audit: AuditStore, forgetKey: (id: string) => void) {
  /** Links the SCIM user to an account if one exists, grants or revokes membership to match `active`. */
  async function settle(row: ScimUserRow): Promise<ScimUserRow> {
    const userId = row.user_id ?? (await store.accountFor(row.external_id, row.user_name)) ?? null;
    if (userId !== row.user_id) await store.update(row.id, { user_id: userId });
    if (userId !== null) {
      if (row.active === 1) await store.grant(row.org_id, userId, now());
      else for (const key of await store.revoke(row.org_id, userId)) forgetKey(key);
    }
    return { ...row, user_id: userId };
  }

  return {
    /** POST /api/v1/orgs/{id}/scim-token: owners; the token is returned once and kept as its hash. */
    async newToken(actor: Actor, orgId: string, ip: string): Promise<string> {
      await policy.require(actor, 'org.manage', { orgId, what: 'The organization' });
      const token = `scim_${randomBytes(32).toString('base64url')}`;
      await store.setToken(orgId, hashKey(token), now());
      await audit.record({ action: 'scim.token_created', actor: actor.user, orgId, ip, target: { type: 'org', id: orgId } });
      return token;
    },

    /** The org a SCIM bearer token belongs to; a wrong or missing token is a 401. */
    async orgOf(token: string | null): Promise<string> {
      const orgId = token ? await store.orgOfToken(hashKey(token)) : undefined;
      if (orgId === undefined) throw new ScimError(401, 'A valid SCIM bearer token for an organisation is required.');
      return orgId;
    },

    async get(orgId: string, id: string): Promise<ScimUserRow> {
      const row = await store.byId(orgId, id);
      // Another org's user answers exactly like a missing one.
      if (!row) throw new ScimError(404, `User ${id} not found.`);
      return row;
    },

    list: (orgId: string, filter: ScimFilter, startIndex: number, count: number) =>
      store.page(orgId, filter, startIndex - 1, Math.min(count, MAX_PAGE)),

    async create(orgId: string, body: unknown): Promise<ScimUserRow> {
      const fields = userFields(body, null);
      const at = now();
      const row: ScimUserRow = { id: newId(), org_id: orgId, ...fields, user_name_key: fields.user_name.toLowerCase(), user_id: null, created_at: at, updated_at: at };
      if ((await store.page(orgId, { attribute: 'user_name_key', value: row.user_name_key }, 0, 0)).total > 0) {
        throw new ScimError(409, `A user with userName "${fields.user_name}" already exists.`, 'uniqueness');
      }
      await store.insert(row);
      return settle(row);
    },

    async replace(orgId: string, id: string, body: unknown): Promise<ScimUserRow> {
      const row = await this.get(orgId, id);
      return save(row, userFields(body, null));
    },

    async patch(orgId: string, id: string, body: unknown): Promise<ScimUserRow> {
      const row = await this.get(orgId, id);
      return save(row, applyPatch(row, body));
    },

    async delete(orgId: string, id: string): Promise<void> {
      const row = await this.get(orgId, id);
      if (row.user_id !== null) for (const key of await store.revoke(orgId, row.user_id)) forgetKey(key);
      await store.delete(row.id);
    },

    /** At sign-in: SCIM users provisioned before this account existed become its memberships now. */
    async signedIn(user: { id: string; login: string; forge_user_id: string | null }): Promise<void> {
      if (user.forge_user_id === null) return;
      for (const row of await store.pendingFor(user.forge_user_id, user.login.toLowerCase())) {
        await store.update(row.id, { user_id: user.id });
        await store.grant(row.org_id, user.id, now());
      }
    },
  };

  async function save(row: ScimUserRow, fields: UserFields): Promise<ScimUserRow> {
    const key = fields.user_name.toLowerCase();
    if (key !== row.user_name_key && (await store.page(row.org_id, { attribute: 'user_name_key', value: key }, 0, 0)).total > 0) {
      throw new ScimError(409, `A user with userName "${fields.user_name}" already exists.`, 'uniqueness');
    }
    const updated = { ...row, ...fields, user_name_key: key, updated_at: now() };
    await store.update(row.id, { ...fields, user_name_key: key, updated_at: updated.updated_at });
    return settle(updated);
  }
}

/** A User resource (RFC 7643 4.1) to the fields kept; `base` fills what a partial body leaves out. */
function userFields(body: unknown, base: UserFields | null): UserFields {
  if (!isRecord(body)) throw new ScimError(400, 'The body must be a JSON object (a SCIM User).', 'invalidSyntax');
  const userName = body.userName ?? base?.user_name;
  if (typeof userName !== 'string' || userName.trim() === '' || userName.length > 256) {
    throw new ScimError(400, 'userName is required: a non-empty string of at most 256 characters.', 'invalidValue');
  }
  return {
    user_name: userName,
    external_id: 'externalId' in body ? text(body.externalId, 'externalId') : base?.external_id ?? null,
    display_name: 'displayName' in body || 'name' in body ? displayName(body) : base?.display_name ?? null,
    email: 'emails' in body ? primaryEmail(body.emails) : base?.email ?? null,
    active: 'active' in body ? bool(body.active, 'active') : base?.active ?? 1,
  };
}

function text(value: unknown, field: string): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || value.length > 1024) throw new ScimError(400, `${field} must be a string of at most 1024 characters.`, 'invalidValue');
  return value;
}

/** Entra ID sends booleans as "True"/"False" strings in PATCH (its documented quirk); both are accepted. */
function bool(value: unknown, field: string): number {
  if (value === true || (typeof value === 'string' && value.toLowerCase() === 'true')) return 1;
  if (value === false || (typeof value === 'string' && value.toLowerCase() === 'false')) return 0;
  throw new ScimError(400, `${field} must be true or false.`, 'invalidValue');
}

function displayName(body: Json): string | null {
  if (typeof body.displayName === 'string' && body.displayName !== '') return text(body.displayName, 'displayName');
  const name = body.name;
  if (!isRecord(name)) return null;
  if (typeof name.formatted === 'string' && name.formatted !== '') return text(name.formatted, 'name.formatted');
  const parts = [name.givenName, name.familyName].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length > 0 ? text(parts.join(' '), 'name') : null;
}

function primaryEmail(emails: unknown): string | null {
  if (!Array.isArray(emails)) return null;
  const list = emails.filter(isRecord);
  const chosen = list.find((e) => e.primary === true || e.primary === 'True' || e.primary === 'true') ?? list[0];
  return chosen ? text(chosen.value, 'emails.value') : null;
}

/**
 * RFC 7644 3.5.2 PATCH, in the shapes Okta and Entra ID send: `op` in any case ("replace",
 * "Replace"), with a `path` naming one attribute (`active`, `userName`, `displayName`,
 * `emails[type eq "work"].value`, `name.givenName`...) or without one and an object `value`.
 */
function applyPatch(row: ScimUserRow, body: unknown): UserFields {
  if (!isRecord(body) || !Array.isArray(body.Operations)) {
    throw new ScimError(400, 'A PATCH body is a PatchOp message with an "Operations" array.', 'invalidSyntax');
  }
  const fields: UserFields = { user_name: row.user_name, external_id: row.external_id, display_name: row.display_name, email: row.email, active: row.active };
  const name: Json = {};
  for (const op of body.Operations as unknown[]) {
    if (!isRecord(op) || typeof op.op !== 'string') throw new ScimError(400, 'Each operation needs an "op".', 'invalidSyntax');
    const kind = op.op.toLowerCase();
    if (kind !== 'add' && kind !== 'replace' && kind !== 'remove') throw new ScimError(400, `Unknown op "${op.op.slice(0, 20)}".`, 'invalidSyntax');
    const value = kind === 'remove' ? null : op.value;
    const entries: [string, unknown][] = typeof op.path === 'string'
      ? [[op.path, value]]
      : isRecord(value) ? Object.entries(value) : [];
    if (entries.length === 0) throw new ScimError(400, 'An operation without a path needs an object value.', 'invalidValue');
    for (const [path, v] of entries) setAttribute(fields, name, path, v);
  }
  // Only the display name is kept: a change to one part of `name` (Entra ID patches name.familyName alone)
  // must not shorten it to that part; name.formatted, or a user without a display name, sets it.
  if ('formatted' in name || (fields.display_name === null && Object.keys(name).length > 0)) fields.display_name = displayName({ name });
  if (typeof fields.user_name !== 'string' || fields.user_name === '') throw new ScimError(400, 'userName cannot be removed.', 'mutability');
  return fields;
}

function setAttribute(fields: UserFields, name: Json, rawPath: string, value: unknown): void {
  // Attribute names are case-insensitive (RFC 7643 2.1); a full URN prefix of the core schema is allowed.
  const path = rawPath.replace(/^urn:ietf:params:scim:schemas:core:2\.0:User:/i, '').toLowerCase();
  if (path === 'active') fields.active = bool(value, 'active');
  else if (path === 'username') fields.user_name = text(value, 'userName') ?? '';
  else if (path === 'externalid') fields.external_id = text(value, 'externalId');
  else if (path === 'displayname') fields.display_name = text(value, 'displayName');
  else if (path === 'emails') fields.email = primaryEmail(value);
  else if (/^emails\[.*\]\.value$/.test(path) || path === 'emails.value') fields.email = text(value, 'emails.value');
  else if (path === 'name' && isRecord(value)) Object.assign(name, value);
  else if (path.startsWith('name.')) name[rawPath.slice(rawPath.toLowerCase().indexOf('name.') + 5)] = value;
  // Other attributes (title, phoneNumbers, the enterprise extension...) are not kept: accepted and ignored,
  // as RFC 7644 3.5.2 lets a service provider do for attributes it does not support.
}
