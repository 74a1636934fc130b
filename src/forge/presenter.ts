import type { LinkStatus } from './service.js';

export function presentLink({ link, counts }: LinkStatus) {
  return { provider: link.provider_id, owner: link.owner, last_synced_at: link.last_synced_at, last_error: link.last_error, counts };
}
