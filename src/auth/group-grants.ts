import type { FastifyBaseLogger } from 'fastify';
import type { OrgRole } from '../db/schema.js';
import type { InTransaction } from '../db/transaction.js';
import { now } from '../db/time.js';
import type { AuditEvent, AuditStore } from '../audit/store.js';
import { nameKey } from '../orgs/names.js';
import type { GroupMapping } from '../providers-config.js';
import type { GroupGrantStore } from './group-grants-store.js';

type Log = Pick<FastifyBaseLogger, 'warn'>;

/**
 * Applies a provider's group mappings to a user at sign-in: the memberships (source "idp") and team
 * memberships its mappings grant are added, changed and removed to match the groups the IdP sent
 * now. Only the orgs and teams the provider's mappings name are looked at, so another provider's
 * grants, and memberships given by hand, by the forge or by SCIM, are never touched.
 */
export function groupGrants(inTransaction: InTransaction<{ grants: GroupGrantStore }>, audit: AuditStore) {
  return {
    async apply(p: { providerId: string; user: { id: string; login: string }; mappings: GroupMapping[]; groups: string[]; log: Log }): Promise<void> {
      if (p.mappings.length === 0) return;
      const held = new Set(p.groups);
      // Recorded after the transaction: on SQLite a write beside an open transaction would wait for it.
      const events: AuditEvent[] = [];
      await inTransaction(async ({ grants }) => {
        const orgKeys = [...new Set(p.mappings.map((m) => nameKey(m.org)))];
        // Looked up by name at every sign-in: an org created after start is picked up, a missing one skipped.
        const orgs = new Map((await grants.orgsByKey(orgKeys)).map((o) => [o.name_key, o.id]));
        for (const key of orgKeys) {
          if (!orgs.has(key)) p.log.warn({ provider: p.providerId, org: key }, 'a group mapping names an organisation that does not exist; skipped');
        }
        const wanted = new Map<string, OrgRole>();
        for (const m of p.mappings) {
          const orgId = orgs.get(nameKey(m.org));
          if (orgId === undefined || !held.has(m.group)) continue;
          if (wanted.get(orgId) !== 'owner') wanted.set(orgId, m.role);
        }

        const at = now();
        const existing = new Map((await grants.membershipsIn(p.user.id, [...orgs.values()])).map((m) => [m.org_id, m]));
        const memberOf = new Set(existing.keys());
        for (const orgId of orgs.values()) {
          const role = wanted.get(orgId);
          const current = existing.get(orgId);
          const target = { type: 'user', id: p.user.id };
          const details = { login: p.user.login, source: 'idp', provider: p.providerId };
          if (role !== undefined && current === undefined) {
            await grants.addMember(orgId, p.user.id, role, at);
            memberOf.add(orgId);
            events.push({ action: 'member.added', actor: p.user, orgId, target, details: { ...details, role } });
          } else if (role !== undefined && current?.source === 'idp' && current.role !== role) {
            await grants.setIdpRole(orgId, p.user.id, role);
            events.push({ action: 'member.role_changed', actor: p.user, orgId, target, details: { ...details, from: current.role, to: role } });
          } else if (role === undefined && current?.source === 'idp') {
            await grants.removeIdpMember(orgId, p.user.id);
            memberOf.delete(orgId);
            events.push({ action: 'member.removed', actor: p.user, orgId, target, details: { ...details, role: current.role } });
          }
        }

        const teamMappings = p.mappings.filter((m): m is GroupMapping & { team: string } => m.team !== null && orgs.has(nameKey(m.org)));
        const named = await grants.teamsByKey([...orgs.values()], [...new Set(teamMappings.map((m) => nameKey(m.team)))]);
        const find = (m: GroupMapping & { team: string }) => named.find((t) => t.org_id === orgs.get(nameKey(m.org)) && t.name_key === nameKey(m.team));
        // A team SCIM provisions has its members from the IdP's Groups: a sign-in never changes them.
        const teams = named.filter((t) => t.source !== 'scim');
        const teamOf = (m: GroupMapping & { team: string }) => {
          const team = find(m);
          return team?.source === 'scim' ? undefined : team;
        };
        for (const m of teamMappings) {
          const team = find(m);
          if (team === undefined) p.log.warn({ provider: p.providerId, org: m.org, team: m.team }, 'a group mapping names a team that does not exist; skipped');
          else if (team.source === 'scim') p.log.warn({ provider: p.providerId, org: m.org, team: m.team }, 'a group mapping names a team SCIM provisions (its members come from SCIM Groups); skipped');
        }
        const wantedTeams = new Set(teamMappings.filter((m) => held.has(m.group)).map(teamOf)
          .filter((t) => t !== undefined && memberOf.has(t.org_id)).map((t) => t!.id));
        const inTeams = new Map((await grants.teamMembershipsIn(p.user.id, teams.map((t) => t.id))).map((r) => [r.team_id, r.source]));
        for (const team of teams) {
          if (wantedTeams.has(team.id) && !inTeams.has(team.id)) await grants.addTeamMember(team.id, p.user.id);
          else if (!wantedTeams.has(team.id) && inTeams.get(team.id) === 'idp') await grants.removeIdpTeamMember(team.id, p.user.id);
        }
      });
      for (const event of events) await audit.record(event);
    },
  };
}
