import type { Actor } from '../auth/actor.js';
import type { AuditStore } from '../audit/store.js';
import type { TeamRow } from '../db/schema.js';
import type { Page } from '../http/pagination.js';
import { badRequest, notFound } from '../http/problem.js';
import { conflictOnDuplicate } from '../db/errors.js';
import { newId } from '../db/ids.js';
import { now } from '../db/time.js';
import type { OrgPolicy } from '../orgs/policy.js';
import type { InOrgTransaction, OrgTx } from '../orgs/transaction.js';
import { nameKey } from '../orgs/names.js';
import type { TeamStore, TeamWithMembers } from './store.js';
import type { CreateTeamBody, UpdateTeamBody } from './presenter.js';

const TEAM = 'The team';
const duplicate = (name: string) => `This organization already has a team named "${name}" (names are compared ignoring case).`;

export function teamService(teams: TeamStore, policy: OrgPolicy, inTransaction: InOrgTransaction, audit: AuditStore) {
  /**
   * Inside the transaction, with the org row locked, so that a member removed from the org at the
   * same moment cannot be written into one of its teams.
   */
  async function checkMembers(tx: OrgTx, orgId: string, userIds: string[]): Promise<string[]> {
    if (!(await tx.orgs.lock(orgId))) throw notFound('The organization');
    const inOrg = await tx.members.membersAmong(orgId, userIds);
    const errors = userIds.flatMap((id, i) => (inOrg.has(id) ? [] : [{ path: `/members/${i}`, message: 'is not a member of this organization' }]));
    if (errors.length) throw badRequest('Team members must be members of the organization.', errors);
    return [...new Set(userIds)];
  }

  async function load(id: string): Promise<TeamWithMembers> {
    const team = await teams.byId(id);
    if (!team) throw notFound(TEAM);
    return team;
  }

  return {
    async list(actor: Actor, orgId: string, page: Page) {
      await policy.authorize(actor, orgId, 'read', 'The organization');
      return teams.page(orgId, page);
    },

    async get(actor: Actor, id: string): Promise<TeamWithMembers> {
      const team = await load(id);
      await policy.authorize(actor, team.org_id, 'read', TEAM);
      return team;
    },

    async create(actor: Actor, orgId: string, body: CreateTeamBody, ip: string): Promise<TeamWithMembers> {
      await policy.authorize(actor, orgId, 'manage', 'The organization');
      const at = now();
      const team: TeamRow = { id: newId(), org_id: orgId, name: body.name, name_key: nameKey(body.name), description: body.description ?? '', created_at: at, updated_at: at };
      await conflictOnDuplicate(() => inTransaction(async (tx) => {
        const members = await checkMembers(tx, orgId, body.members ?? []);
        await tx.teams.insert(team);
        await tx.teams.replaceMembers(team.id, members);
      }), duplicate(body.name), 'The organization');
      await audit.record({ action: 'team.created', actor: actor.user, orgId, ip, target: { type: 'team', id: team.id }, details: { name: team.name } });
      return load(team.id);
    },

    async update(actor: Actor, id: string, body: UpdateTeamBody, ip: string): Promise<TeamWithMembers> {
      const team = await load(id);
      await policy.authorize(actor, team.org_id, 'manage', TEAM);
      await conflictOnDuplicate(() => inTransaction(async (tx) => {
        const members = body.members && await checkMembers(tx, team.org_id, body.members);
        const updated = await tx.teams.update(id, {
          ...(body.name !== undefined ? { name: body.name, name_key: nameKey(body.name) } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          updated_at: now(),
        });
        // Deleted since it was loaded above.
        if (!updated) throw notFound(TEAM);
        if (members) await tx.teams.replaceMembers(id, members);
      }), duplicate(body.name ?? ''));
      await audit.record({ action: 'team.updated', actor: actor.user, orgId: team.org_id, ip, target: { type: 'team', id }, details: { ...body } });
      return load(id);
    },

    async delete(actor: Actor, id: string, ip: string): Promise<void> {
      const team = await load(id);
      await policy.authorize(actor, team.org_id, 'manage', TEAM);
      if (!(await teams.delete(id))) throw notFound(TEAM);
      await audit.record({ action: 'team.deleted', actor: actor.user, orgId: team.org_id, ip, target: { type: 'team', id }, details: { name: team.name } });
    },
  };
}
export type TeamService = ReturnType<typeof teamService>;
