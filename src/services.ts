import type { Config } from './config.js';
import type { Db } from './db/index.js';
import { transactions } from './db/transaction.js';
import { createPolicy } from './policy.js';
import { userStore } from './users/store.js';
import { userService } from './users/service.js';
import { sessionStore } from './auth/session-store.js';
import { apiKeyStore } from './apikeys/store.js';
import { apiKeyService } from './apikeys/service.js';
import { keyActorCache } from './auth/key-cache.js';
import { auditStore } from './audit/store.js';
import { auditService } from './audit/service.js';
import { orgStore } from './orgs/store.js';
import { orgService } from './orgs/service.js';
import { memberStore } from './orgs/members-store.js';
import { memberService } from './orgs/members-service.js';
import { repoStore } from './repos/store.js';
import { repoService } from './repos/service.js';
import { ciIdentityService } from './ci-identity/service.js';
import { ciIdentityStore } from './ci-identity/store.js';
import { issuerKeyCache } from './ci-identity/issuer-keys.js';
import { teamStore } from './teams/store.js';
import { teamService } from './teams/service.js';
import { createScans } from './scans/index.js';
import { resultsStore } from './results/store.js';
import { resultsService } from './results/service.js';
import { remediationStore } from './remediation/store.js';
import { remediationService } from './remediation/service.js';
import { refStore } from './refs/store.js';
import { refService } from './refs/service.js';
import { analysisStore } from './analyses/store.js';
import { analysisService } from './analyses/service.js';
import { findingStore } from './findings/store.js';
import { findingService } from './findings/service.js';
import { vexStore } from './vex/store.js';
import { vexService } from './vex/service.js';
import { suppressionStore } from './suppressions/store.js';
import { suppressionService } from './suppressions/service.js';
import { adminPinStore } from './auth/admin-pins-store.js';
import { siteAdmins } from './auth/site-admins.js';
import { samlService } from './auth/saml-service.js';
import { samlStore } from './auth/saml-store.js';
import { groupGrants } from './auth/group-grants.js';
import { groupGrantStore } from './auth/group-grants-store.js';
import { scimService } from './scim/service.js';
import { scimGroupService } from './scim/groups-service.js';
import { scimStore } from './scim/store.js';
import { gateService } from './gates/service.js';
import { badgeService } from './badges/service.js';
import { badgeStore } from './badges/store.js';
import { createWebhooks } from './webhooks/index.js';
import { createVerdicts } from './verdicts/index.js';
import { advisoryService } from './advisories/service.js';
import { componentService } from './components/service.js';
import { componentStore } from './components/store.js';
import { createForgeSync } from './forge/index.js';
import { forgeTokenSealer } from './auth/forge-token.js';
import { metricsService } from './metrics/service.js';

/** A zip of advisories may inflate to no more than ten uploads' worth, in at most a million files. */
export function advisoryZipLimits(config: Config) {
  return { maxInflatedBytes: config.maxUploadBytes * 10, maxEntries: 1_000_000 };
}

/** How advisory sources are fetched: the upload limits bound what a source may send. */
export function advisorySyncOptions(config: Config) {
  return {
    allowPrivate: config.advisoryAllowPrivate, maxBytes: config.maxUploadBytes, limits: advisoryZipLimits(config),
    timeoutMs: 10 * 60 * 1000, leaseMs: 30 * 60 * 1000,
  };
}

/** Stores and services, built once per app from the database; routes receive what they need. */
export function createServices(config: Config, db: Db, sessionSecret: string | null = config.sessionSecret) {
  const k = db.kysely;
  const users = userStore(k);
  const apiKeys = apiKeyStore(k);
  const audit = auditStore(k);
  const members = memberStore(k);
  const policy = createPolicy(members);
  // The stores whose writes must land together (an org and its first owner; a team and its members).
  const inOrgTransaction = transactions(k, (trx) => ({ orgs: orgStore(trx), members: memberStore(trx), teams: teamStore(trx) }));
  const repos = repoService(repoStore(k), policy, audit);
  const gates = gateService(k, repos.authorized, policy, audit);
  const advisories = advisoryService(k, policy, advisoryZipLimits(config), config.advisorySources);
  const findings = findingStore(db);
  const keyActors = keyActorCache();
  const providerTypeOf = (id: string | null) => [...config.providers, ...config.oidcProviders, ...config.samlProviders].find((p) => p.id === id)?.type;
  const sessions = sessionStore(k);
  const scimTransaction = transactions(k, (trx) => ({ scim: scimStore(trx) }));
  const forgeTokens = forgeTokenSealer(sessionSecret);
  return {
    config,
    db,
    users,
    sessions,
    forgeTokens,
    apiKeys,
    keyActors,
    audit,
    userService: userService(users, policy, providerTypeOf),
    apiKeyService: apiKeyService(apiKeys, policy, audit, (id) => keyActors.forget(id)),
    auditService: auditService(audit, policy),
    orgService: orgService(orgStore(k), policy, inOrgTransaction, audit),
    memberService: memberService(members, users, policy, inOrgTransaction, audit),
    repoService: repos,
    teamService: teamService(teamStore(k), policy, inOrgTransaction, audit),
    scans: createScans(config, db, repos.authorized),
    results: resultsService(resultsStore(k, db.dialect), refStore(k), repos.authorized, repos.admitted),
    remediation: remediationService(remediationStore(k), refStore(k), repos.authorized, policy),
    refService: refService(refStore(k), repos.authorized),
    analysisService: analysisService(analysisStore(db), repos.authorized, audit),
    findingService: findingService(findings, repos.authorized, audit),
    vexService: vexService(vexStore(db), repos.authorized),
    suppressionService: suppressionService(suppressionStore(db), findings, policy, audit),
    admins: siteAdmins(config.admins, adminPinStore(k)),
    scimService: scimService(scimStore(k), scimTransaction, policy, audit, (id) => keyActors.forget(id), [...config.oidcProviders, ...config.samlProviders].map((p) => p.id)),
    scimGroupService: scimGroupService(scimStore(k), scimTransaction, audit),
    groupGrants: groupGrants(transactions(k, (trx) => ({ grants: groupGrantStore(trx) })), audit),
    saml: samlService(config.samlProviders, samlStore(k), { baseUrl: config.baseUrl, allowPrivate: config.samlAllowPrivate }),
    gateService: gates,
    badgeService: badgeService(badgeStore(k), repoStore(k), repos.authorized, gates, audit),
    webhooks: createWebhooks(config, db, policy, audit),
    verdicts: createVerdicts(config, db, repos.authorized, policy, audit),
    advisoryService: advisories,
    componentService: componentService(componentStore(k), advisories, policy),
    ciIdentity: ciIdentityService(ciIdentityStore(k), policy, audit, config.ciIssuers, issuerKeyCache({ allowPrivate: config.ciAllowPrivate }),
      (id) => config.providers.find((p) => p.id === id)?.type),
    forge: createForgeSync(config, db, policy, audit, async (sessionId) => forgeTokens.open(await sessions.forgeTokenOf(sessionId))),
    metricsService: metricsService(k, repos.authorized, policy, audit),
  };
}
export type Services = ReturnType<typeof createServices>;
