import { Type, type Static } from 'typebox';
import { Nullable, Time } from '../http/schemas.js';

export const TrustRuleParams = Type.Object({ id: Type.String(), rule_id: Type.String() });

const Glob = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });

export const TrustRuleBody = Type.Object({
  issuer: Type.String({ minLength: 1, maxLength: 64, description: 'The id of a SERVICE_CI_ISSUERS entry.' }),
  repository: Glob("The CI's repository full name or a glob (acme/*: * within a segment, a final ** any depth); Bitbucket: the braced {repositoryUuid}. Any case."),
  ref: Type.Optional(Glob('A glob over the full ref the job built: refs/heads/main, refs/tags/v*, refs/pull/*/merge. Any ref when left out.')),
  event: Type.Optional(Type.Enum(['push', 'pull_request', 'tag'], { description: 'Only jobs of this event; push, pull_request or tag when left out.' })),
  environment: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Only jobs of this deployment environment (the token's environment claim)." })),
  target_repo_id: Type.Optional(Type.String({ maxLength: 64, description: "The Scanyard repository it may upload to; left out, the org's repository whose forge_id is the token's repository id." })),
}, { additionalProperties: false, title: 'NewCiTrustRule' });
export type TrustRuleBody = Static<typeof TrustRuleBody>;

export const TrustRuleSchema = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  issuer: Type.String(),
  repository: Type.String(),
  ref: Nullable(Type.String()),
  event: Nullable(Type.String()),
  environment: Nullable(Type.String()),
  target_repo_id: Nullable(Type.String()),
  created_at: Time,
}, { title: 'CiTrustRule' });
export type TrustRuleJson = Static<typeof TrustRuleSchema>;

export const DefaultRuleBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false, title: 'CiDefaultRuleChange' });
export const DefaultRuleSchema = Type.Object({
  enabled: Type.Boolean({ description: "Owners' choice (default true)." }),
  applies: Type.Boolean({ description: 'Enabled and the org is linked to its forge: each repository accepts uploads from its own pipelines.' }),
}, { title: 'CiDefaultRule' });

export const ExchangeBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 16384, description: "The CI job's OIDC token (a JWT)." }),
}, { additionalProperties: false, title: 'CiTokenExchange' });

export const ExchangedSchema = Type.Object({
  token: Type.String({ description: 'A Scanyard token (syc_…) for uploads to the repositories below, on the job\'s ref and commit only.' }),
  expires_at: Time,
  repositories: Type.Array(Type.Object({ id: Type.String(), org_id: Type.String(), name: Type.String() })),
  ref: Type.String({ description: 'The ref uploads made with it belong to, from the job token.' }),
  commit_sha: Nullable(Type.String()),
}, { title: 'CiToken' });
