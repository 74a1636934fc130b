import type { Static } from 'typebox';
import type { RepoGateSchema } from './schema.js';
import type { RepoGate } from './service.js';

export function presentRepoGate(gate: RepoGate): Static<typeof RepoGateSchema> {
  return {
    repository_id: gate.repositoryId,
    status: gate.status,
    violations: gate.violations,
    policy_source: gate.policy.source,
    policy: gate.policy.document,
    judged_at: gate.judgedAt,
    upload_id: gate.uploadId,
  };
}
