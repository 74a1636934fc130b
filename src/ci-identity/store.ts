import type { Insertable, Kysely } from 'kysely';
import type { CiTokensTable, CiTrustRulesTable, Database } from '../db/schema.js';
import { paginate, type Page } from '../db/page.js';
import { isUniqueViolation } from '../db/errors.js';

export function ciIdentityStore(db: Kysely<Database>) {
  return {
    rulesPage(orgId: string, page: Page) {
      return paginate(db.selectFrom('ci_trust_rules').where('org_id', '=', orgId), page,
        (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id'));
    },

    async insertRule(row: Insertable<CiTrustRulesTable>): Promise<void> {
      await db.insertInto('ci_trust_rules').values(row).execute();
    },

    async removeRule(orgId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('ci_trust_rules').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Every rule of every org naming this issuer (an exchange does not know the org beforehand). */
    rulesOfIssuer(issuerId: string) {
      return db.selectFrom('ci_trust_rules').selectAll().where('issuer', '=', issuerId).orderBy('created_at').orderBy('id').execute();
    },

    async repoInOrg(orgId: string, repoId: string) {
      return db.selectFrom('repos').select(['id', 'org_id', 'name']).where('org_id', '=', orgId).where('id', '=', repoId).executeTakeFirst();
    },

    /** The org's repository whose forge id is this (repos.forge_id, filled by forge sync). */
    repoByForgeId(orgId: string, forgeId: string) {
      return db.selectFrom('repos').select(['id', 'org_id', 'name', 'full_name']).where('org_id', '=', orgId).where('forge_id', '=', forgeId).executeTakeFirst();
    },

    /** Every org's repository with this forge id, in orgs that keep the default rule on. */
    reposByForgeIdWithDefaultRule(forgeId: string) {
      return db.selectFrom('repos').innerJoin('orgs', 'orgs.id', 'repos.org_id')
        .select(['repos.id', 'repos.org_id', 'repos.name', 'repos.full_name'])
        .where('repos.forge_id', '=', forgeId).where('orgs.ci_default_rule', '=', 1).execute();
    },

    /** The sign-in provider the org is linked to on its forge (forge/), or null when it is not linked. */
    async forgeProviderOf(orgId: string): Promise<string | null> {
      const row = await db.selectFrom('forge_links').select('provider_id').where('org_id', '=', orgId).executeTakeFirst();
      return row?.provider_id ?? null;
    },

    async defaultRule(orgId: string): Promise<boolean | undefined> {
      const row = await db.selectFrom('orgs').select('ci_default_rule').where('id', '=', orgId).executeTakeFirst();
      return row ? row.ci_default_rule === 1 : undefined;
    },

    async setDefaultRule(orgId: string, enabled: boolean): Promise<void> {
      await db.updateTable('orgs').set({ ci_default_rule: enabled ? 1 : 0 }).where('id', '=', orgId).execute();
    },

    /**
     * The repository id claim a rule first saw for this repository name, recording `idClaim` when
     * none was: the answer is what is stored, whichever instance stored it first.
     */
    async bind(ruleId: string, repositoryName: string, idClaim: string, at: string): Promise<string> {
      await db.insertInto('ci_trust_bindings').values({ rule_id: ruleId, repository_name: repositoryName, repository_id_claim: idClaim, created_at: at })
        .onConflict((oc) => oc.columns(['rule_id', 'repository_name']).doNothing()).execute();
      const row = await db.selectFrom('ci_trust_bindings').select('repository_id_claim')
        .where('rule_id', '=', ruleId).where('repository_name', '=', repositoryName).executeTakeFirstOrThrow();
      return row.repository_id_claim;
    },

    /** Records a job token's use; false when it was used before (on any instance). */
    async useOnce(useKey: string, expiresAt: string): Promise<boolean> {
      try {
        await db.insertInto('ci_token_uses').values({ use_key: useKey, expires_at: expiresAt }).execute();
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    async insertToken(row: Insertable<CiTokensTable>): Promise<void> {
      await db.insertInto('ci_tokens').values(row).execute();
    },

    findActiveToken(tokenHash: string, at: string) {
      return db.selectFrom('ci_tokens').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', at).executeTakeFirst();
    },

    /** Housekeeping: job token uses past their token's expiry can no longer be replayed anyway. */
    async prune(at: string): Promise<number> {
      const uses = await db.deleteFrom('ci_token_uses').where('expires_at', '<', at).executeTakeFirst();
      const tokens = await db.deleteFrom('ci_tokens').where('expires_at', '<', at).executeTakeFirst();
      return Number(uses.numDeletedRows) + Number(tokens.numDeletedRows);
    },
  };
}
export type CiIdentityStore = ReturnType<typeof ciIdentityStore>;
