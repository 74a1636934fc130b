import type { FastifyBaseLogger } from 'fastify';
import type { ForgeDeliveryRow } from '../db/schema.js';
import { outboxRunner, type Attempt, type OutboxOptions, type OutboxRunner } from '../jobs/outbox.js';
import type { ForgeAccess } from './access.js';
import { waitAskedFor } from '../net/rate-limit.js';
import { ForgeRefused } from './http.js';
import { kindOn, sendVerdict, type SendContext } from './forges.js';
import type { VerdictStore } from './store.js';
import type { DeliveryKind, Verdict } from './types.js';

/**
 * Answers that no retry changes: our request was wrong (400, 422) or what it names is not there (404,
 * 410). Anything else (5xx, 429, a rate-limited 403, no answer) is tried again.
 */
const FINAL = new Set([400, 404, 410, 422]);

export interface VerdictDeliveryOptions extends OutboxOptions {
  baseUrl: string;
}

/** The verdict outbox's workers: each delivery sent to its repository's forge, retried as the forge asks. */
export function verdictRunner(
  store: VerdictStore, forgeOf: (repositoryId: string) => ForgeAccess | null | Promise<ForgeAccess | null>, options: VerdictDeliveryOptions, log: FastifyBaseLogger,
): OutboxRunner {
  async function attempt(delivery: ForgeDeliveryRow): Promise<Attempt> {
    const verdict = JSON.parse(delivery.payload) as Verdict;
    try {
      const access = await forgeOf(delivery.repository_id);
      if (!access) throw new Error('no forge credentials are configured for this repository');
      const kind = kindOn(access.type, delivery.kind as DeliveryKind);
      if (kind !== delivery.kind) await store.setKind(delivery, kind);
      const ctx: SendContext = {
        access, token: await access.token(verdict.repository.full_name), baseUrl: options.baseUrl,
        externalId: delivery.external_id,
        state: delivery.external_state ? (JSON.parse(delivery.external_state) as SendContext['state']) : {},
        startedCheck: () => store.startedCheck(delivery.upload_id, delivery.id),
        save: (id, state) => store.saveExternal(delivery, id, state),
        threadComment: () => store.threadComment(delivery.repository_id, delivery.thread),
        saveThreadComment: (id) => store.saveThreadComment(delivery.repository_id, delivery.thread, id),
      };
      await sendVerdict(kind, verdict, ctx);
      return { ok: true, status: null, body: null, error: null };
    } catch (err) {
      // Never the token: errors name what was being done and the status, nothing sent.
      const error = (err as Error).message;
      if (!(err instanceof ForgeRefused)) return { ok: false, status: null, body: null, error };
      const { answer } = err;
      return { ok: false, status: answer.status, body: answer.text, error, waitMs: waitAskedFor(answer, options.clock()), final: FINAL.has(answer.status) };
    }
  }

  return outboxRunner<ForgeDeliveryRow>({
    what: 'verdict',
    claim: (at, leaseUntil) => store.claim(at, leaseUntil),
    attempts: (delivery) => delivery.attempts,
    renewLease: (delivery, leaseUntil) => store.renewLease(delivery, leaseUntil),
    attempt,
    // Each attempt's log entry names the status the forge answered (200 for a delivery that went through).
    record: (delivery, outcome, next, at) => store.record(delivery, outcome, next, { status_code: next.status === 'succeeded' ? 200 : outcome.last_status_code, at }),
    logFields: (delivery) => ({ delivery_id: delivery.id, repository_id: delivery.repository_id, kind: delivery.kind }),
  }, options, log);
}
