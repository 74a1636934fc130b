import type { Actor, KeyScope } from '../domain/actor.js';
import { KEY_SCOPES } from '../domain/actor.js';
import { generateKey, hashKey, VISIBLE_PREFIX_LENGTH } from '../auth/key-format.js';
import { badRequest, notFound, refuseIds } from '../problem.js';
import type { Page } from '../db/page.js';
import type { ApiKeyRow } from '../db/schema.js';
import type { Policy } from '../policy.js';
import type { ApiKeyStore } from './store.js';
import type { AuditStore } from '../audit/store.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';

export interface KeyRequest {
  name: string;
  /** As stored (ISO 8601 in UTC), so it compares with now() as text. */
  expiresAt?: string | null;
  /** The broadest listed applies; write when left out. */
  scopes?: KeyScope[];
  /** Narrows the key to these orgs. */
  orgIds?: string[] | null;
}

/**
 * Keys act for the user who made them; each user sees and revokes only their own. `revoked` is told
 * of each revocation, so this instance stops trusting the key at once (others within a second).
 */
export function apiKeyService(keys: ApiKeyStore, policy: Policy, audit: AuditStore, revoked: (id: string) => void) {
  return {
    async create(actor: Actor, request: KeyRequest, ip: string): Promise<{ row: ApiKeyRow; secret: string }> {
      const at = now();
      if (request.expiresAt && request.expiresAt <= at) {
        throw badRequest('expires_at must be in the future.', [{ path: '/expires_at', message: 'must be in the future' }]);
      }
      const orgIds = request.orgIds ?? null;
      if (orgIds) await checkWithinReach(actor, orgIds);
      const secret = generateKey();
      const row: ApiKeyRow = {
        id: newId(),
        user_id: actor.user.id,
        name: request.name,
        prefix: secret.slice(0, VISIBLE_PREFIX_LENGTH),
        key_hash: hashKey(secret),
        scope: broadest(request.scopes ?? ['write']),
        org_ids: orgIds ? JSON.stringify([...new Set(orgIds)]) : null,
        created_at: at,
        expires_at: request.expiresAt ?? null,
        last_used_at: null,
      };
      await keys.insert(row);
      await audit.record({ action: 'api_key.created', actor: actor.user, ip, target: { type: 'api_key', id: row.id }, details: { name: row.name, scope: row.scope } });
      return { row, secret };
    },

    list: (actor: Actor, page: Page) => keys.page(actor.user.id, page),

    async revoke(actor: Actor, id: string, ip: string): Promise<void> {
      if (!(await keys.delete(actor.user.id, id))) throw notFound('The API key');
      revoked(id);
      await audit.record({ action: 'api_key.revoked', actor: actor.user, ip, target: { type: 'api_key', id } });
    },
  };

  /**
   * A site administrator reaches every org that exists; anyone else only their own, and another's
   * org reads exactly like a missing one, so a key request never tells which orgs exist.
   */
  async function checkWithinReach(actor: Actor, orgIds: string[]): Promise<void> {
    const beyond = await policy.orgsBeyondReach(actor, orgIds);
    const within = new Set(orgIds.filter((id) => !beyond.has(id)));
    if (actor.isAdmin) refuseIds('A key can only be narrowed to organizations that exist.', 'org_ids', orgIds, within, 'is not an organization');
    refuseIds('A key can only be narrowed to organizations you belong to.', 'org_ids', orgIds, within, 'is not an organization you belong to');
  }
}

function broadest(scopes: KeyScope[]): KeyScope {
  return KEY_SCOPES.filter((s) => scopes.includes(s)).at(-1) ?? 'read';
}
