import type { Static } from 'typebox';
import type { BadgeTokenSchema } from './schema.js';

export function presentBadgeToken(repositoryId: string, token: string, createdAt: string): Static<typeof BadgeTokenSchema> {
  const query = `?token=${encodeURIComponent(token)}`;
  return {
    repository_id: repositoryId, token, created_at: createdAt,
    findings_url: `/badge/${repositoryId}/findings.svg${query}`,
    gate_url: `/badge/${repositoryId}/gate.svg${query}`,
  };
}
