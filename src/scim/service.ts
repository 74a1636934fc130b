import { randomBytes } from 'node:crypto';
import type { Actor } from '../domain/actor.js';
import type { ScimUserRow } from '../db/schema.js';
import type { InTransaction } from '../db/transaction.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { AuditEvent, AuditStore } from '../audit/store.js';
import { hashKey } from '../auth/key-format.js';
import { badRequest } from '../problem.js';
import type { Policy } from '../policy.js';
import { ScimError } from './scim-error.js';
import { parseFilter } from './filter.js';
import type { LinkScope, ScimStore, UserCondition } from './store.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of a User this service keeps (RFC 7643 4.1). */
interface UserFields { user_name: string; external_id: string | null; display_name: string | null; email: string | null; active: number }

export const MAX_PAGE = 200;

/** The attributes a Users filter may compare (lower case), and what each is in the store. */
const USER_FILTERS: Record<string, UserCondition['attribute']> = { username: 'user_name_key', externalid: 'external_id', id: 'id' };

/** What de-provisioning leaves to do after its transaction: keys to forget from caches, the audit event. */
interface Revoked { keys: string[]; event: AuditEvent | null }
const NOTHING: Revoked = { keys: [], event: null };

/** The org a SCIM token speaks for, and whose accounts its users may be linked to. */
export interface ScimCaller { orgId: string; scope: LinkScope }

/**
 * SCIM Users, and the token. `enterpriseProviders`: the ids of the OpenID Connect and SAML providers
 * configured, the only accounts a SCIM user may be linked to (a forge account whose login happens to
 * equal a userName is somebody else's).
 */
export function scimService(
  store: ScimStore, inTransaction: InTransaction<{ scim: ScimStore }>, policy: Policy, audit: AuditStore,
  forgetKey: (id: string) => void, enterpriseProviders: readonly string[],
) {
  /** A token made before it named a provider trusts the only OpenID Connect or SAML provider, when there is exactly one. */
  const onlyProvider = enterpriseProviders.length === 1 ? enterpriseProviders[0]! : null;

  /** Takes the person's access to the org away; what to forget and to write in the audit log once committed. */
  async function deprovision(scim: ScimStore, row: ScimUserRow, userId: string): Promise<Revoked> {
    const removed = await scim.revoke(row.org_id, userId);
    // The IdP's word that the person is gone outweighs keeping an owner: a site administrator can name a new one.
    const event: AuditEvent | null = removed.role === null ? null : {
      action: 'member.removed', actor: null, orgId: row.org_id, target: { type: 'user', id: userId },
      details: { source: 'scim', scim_user: row.user_name, role: removed.role, ...(removed.lastOwner ? { last_owner: true } : {}) },
    };
    return { keys: removed.keys, event };
  }

  /** After the transaction: on SQLite a write beside an open transaction would wait for it. */
  async function committed({ keys, event }: Revoked): Promise<void> {
    keys.forEach(forgetKey);
    if (event) await audit.record(event);
  }

  /** Links the SCIM user to an account of the trusted provider if one exists, grants or revokes membership to match `active`. */
  async function settle(scope: LinkScope, row: ScimUserRow): Promise<ScimUserRow> {
    const userId = row.user_id ?? (await store.accountFor(scope, row.external_id, row.user_name)) ?? null;
    await committed(await inTransaction(async ({ scim }) => {
      if (userId !== row.user_id) await scim.update(row.id, { user_id: userId });
      if (userId === null) return NOTHING;
      if (row.active === 1) {
        await scim.grant(row.org_id, userId, now());
        await scim.syncUserTeams(row.org_id, userId);
        return NOTHING;
      }
      return deprovision(scim, row, userId);
    }));
    return { ...row, user_id: userId };
  }

  return {
    /**
     * POST /api/v1/orgs/{id}/scim-token: owners; the token is returned once and kept as its hash,
     * with the provider whose accounts it links (named, else the only OpenID Connect or SAML provider).
     */
    async newToken(actor: Actor, orgId: string, provider: string | undefined, ip: string): Promise<{ token: string; provider: string | null }> {
      await policy.require(actor, 'org.manage', { orgId, what: 'The organization' });
      if (provider !== undefined && !enterpriseProviders.includes(provider)) {
        throw badRequest(`"${provider}" is not an OpenID Connect or SAML provider of this service; SCIM users are linked to accounts of one (${enterpriseProviders.join(', ') || 'none is configured'}).`);
      }
      const trusted = provider ?? onlyProvider;
      const token = `scim_${randomBytes(32).toString('base64url')}`;
      await store.setToken(orgId, hashKey(token), trusted, now());
      await audit.record({ action: 'scim.token_created', actor: actor.user, orgId, ip, target: { type: 'org', id: orgId }, details: { provider: trusted } });
      return { token, provider: trusted };
    },

    /** Whom a SCIM bearer token speaks for; a wrong or missing token is a 401. */
    async callerOf(token: string | null): Promise<ScimCaller> {
      const found = token ? await store.tokenOf(hashKey(token)) : undefined;
      if (found === undefined) throw new ScimError(401, 'A valid SCIM bearer token for an organisation is required.');
      return { orgId: found.org_id, scope: { providerId: found.provider_id ?? onlyProvider } };
    },

    async get(caller: ScimCaller, id: string): Promise<ScimUserRow> {
      const row = await store.byId(caller.orgId, id);
      // Another org's user answers exactly like a missing one.
      if (!row) throw new ScimError(404, `User ${id} not found.`);
      return row;
    },

    /** userName compares ignoring case (caseExact false, RFC 7643 4.1.1); externalId and id exactly. */
    list(caller: ScimCaller, filter: string | undefined, startIndex: number, count: number) {
      const conditions = parseFilter(filter, USER_FILTERS).map((c) => c.attribute === 'user_name_key' ? { ...c, value: c.value.toLowerCase() } : c);
      return store.page(caller.orgId, conditions, startIndex - 1, Math.min(count, MAX_PAGE));
    },

    async create(caller: ScimCaller, body: unknown): Promise<ScimUserRow> {
      const fields = userFields(body, null);
      const at = now();
      const row: ScimUserRow = { id: newId(), org_id: caller.orgId, ...fields, user_name_key: fields.user_name.toLowerCase(), user_id: null, created_at: at, updated_at: at };
      if ((await store.page(caller.orgId, [{ attribute: 'user_name_key', value: row.user_name_key }], 0, 0)).total > 0) {
        throw new ScimError(409, `A user with userName "${fields.user_name}" already exists.`, 'uniqueness');
      }
      await store.insert(row);
      return settle(caller.scope, row);
    },

    async replace(caller: ScimCaller, id: string, body: unknown): Promise<ScimUserRow> {
      const row = await this.get(caller, id);
      return save(caller.scope, row, userFields(body, null));
    },

    async patch(caller: ScimCaller, id: string, body: unknown): Promise<ScimUserRow> {
      const row = await this.get(caller, id);
      return save(caller.scope, row, applyPatch(row, body));
    },

    async delete(caller: ScimCaller, id: string): Promise<void> {
      const row = await this.get(caller, id);
      await committed(await inTransaction(async ({ scim }) => {
        const revoked = row.user_id === null ? NOTHING : await deprovision(scim, row, row.user_id);
        await scim.delete(row.id);
        return revoked;
      }));
    },

    /**
     * At sign-in: SCIM users provisioned before this account existed become its memberships now, in
     * the orgs that trust the provider it signed in with (and no other: a forge login is not the IdP's).
     */
    async signedIn(user: { id: string; login: string; provider_id: string | null; forge_user_id: string | null }): Promise<void> {
      if (user.forge_user_id === null || user.provider_id === null || !enterpriseProviders.includes(user.provider_id)) return;
      const account = { providerId: user.provider_id, sub: user.forge_user_id, login: user.login };
      for (const row of await store.pendingFor(account, user.provider_id === onlyProvider)) {
        await inTransaction(async ({ scim }) => {
          await scim.update(row.id, { user_id: user.id });
          await scim.grant(row.org_id, user.id, now());
          await scim.syncUserTeams(row.org_id, user.id);
        });
      }
    },
  };

  async function save(scope: LinkScope, row: ScimUserRow, fields: UserFields): Promise<ScimUserRow> {
    const key = fields.user_name.toLowerCase();
    if (key !== row.user_name_key && (await store.page(row.org_id, [{ attribute: 'user_name_key', value: key }], 0, 0)).total > 0) {
      throw new ScimError(409, `A user with userName "${fields.user_name}" already exists.`, 'uniqueness');
    }
    const updated = { ...row, ...fields, user_name_key: key, updated_at: now() };
    await store.update(row.id, { ...fields, user_name_key: key, updated_at: updated.updated_at });
    return settle(scope, updated);
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
