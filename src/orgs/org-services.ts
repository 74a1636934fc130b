import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { AuditStore } from '../audit/store.js';
import type { UserStore } from '../users/store.js';
import { orgStore } from './store.js';
import { memberStore } from './members-store.js';
import { orgPolicy } from './policy.js';
import { orgTransactions } from './transaction.js';
import { orgService } from './service.js';
import { memberService } from './members-service.js';
import { repoStore } from '../repos/store.js';
import { repoService } from '../repos/service.js';
import { teamStore } from '../teams/store.js';
import { teamService } from '../teams/service.js';

/** Orgs and what hangs off them (members, repos, teams), sharing one policy; spread into Services. */
export function orgServices(db: Kysely<Database>, users: UserStore, audit: AuditStore) {
  const members = memberStore(db);
  const policy = orgPolicy(members);
  const inTransaction = orgTransactions(db);
  return {
    orgPolicy: policy,
    orgService: orgService(orgStore(db), policy, inTransaction, audit),
    memberService: memberService(members, users, policy, inTransaction, audit),
    repoService: repoService(repoStore(db), policy, audit),
    teamService: teamService(teamStore(db), policy, inTransaction, audit),
  };
}
