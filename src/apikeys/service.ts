import type { Actor, KeyScope } from '../auth/actor.js';
import { KEY_SCOPES } from '../auth/actor.js';
import { generateKey, hashKey, VISIBLE_PREFIX_LENGTH } from '../auth/key-format.js';
import { badRequest, notFound } from '../http/problem.js';
import type { Page } from '../http/pagination.js';
import type { ApiKeyRow } from '../db/schema.js';
import type { ApiKeyStore } from './store.js';
import type { UserStore } from '../users/store.js';
import type { AuditStore } from '../audit/store.js';
import type { CreateApiKeyBody } from './presenter.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';

export function apiKeyService(keys: ApiKeyStore, users: UserStore, audit: AuditStore) {
  return {
    async create(actor: Actor, body: CreateApiKeyBody, ip: string): Promise<{ row: ApiKeyRow; secret: string }> {
      const at = now();
      if (body.expires_at && body.expires_at <= at) {
        throw badRequest('expires_at must be in the future.', [{ path: '/expires_at', message: 'must be in the future' }]);
      }
      const orgIds = body.org_ids ?? null;
      if (orgIds && !actor.isAdmin) await checkMemberOfAll(actor.user.id, orgIds);
      const secret = generateKey();
      const row: ApiKeyRow = {
        id: newId(),
        user_id: actor.user.id,
        name: body.name,
        prefix: secret.slice(0, VISIBLE_PREFIX_LENGTH),
        key_hash: hashKey(secret),
        scope: broadest(body.scopes ?? ['write']),
        org_ids: orgIds ? JSON.stringify([...new Set(orgIds)]) : null,
        created_at: at,
        expires_at: body.expires_at ? new Date(body.expires_at).toISOString() : null,
        last_used_at: null,
      };
      await keys.insert(row);
      await audit.record({ action: 'api_key.created', actor: actor.user, ip, target: { type: 'api_key', id: row.id }, details: { name: row.name, scope: row.scope } });
      return { row, secret };
    },

    list: (actor: Actor, page: Page) => keys.page(actor.user.id, page),

    async revoke(actor: Actor, id: string, ip: string): Promise<void> {
      if (!(await keys.delete(actor.user.id, id))) throw notFound('The API key');
      await audit.record({ action: 'api_key.revoked', actor: actor.user, ip, target: { type: 'api_key', id } });
    },
  };

  async function checkMemberOfAll(userId: string, orgIds: string[]): Promise<void> {
    const mine = new Set((await users.orgRoles(userId)).map((o) => o.id));
    const errors = orgIds.flatMap((id, i) => (mine.has(id) ? [] : [{ path: `/org_ids/${i}`, message: 'is not an organization you belong to' }]));
    if (errors.length) throw badRequest('A key can only be narrowed to organizations you belong to.', errors);
  }
}

function broadest(scopes: KeyScope[]): KeyScope {
  return KEY_SCOPES.filter((s) => scopes.includes(s)).at(-1) ?? 'read';
}
export type ApiKeyService = ReturnType<typeof apiKeyService>;
