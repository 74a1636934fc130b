import type { FastifyBaseLogger } from 'fastify';
import type { ForgeDeliveryRow } from '../db/schema.js';
import { startLoops, type Loops } from '../jobs/loops.js';
import type { ForgeAccess } from './access.js';
import { ForgeRefused, waitAskedFor } from './http.js';
import { kindOn, sendVerdict, type SendContext } from './forges.js';
import type { VerdictStore } from './store.js';
import type { DeliveryKind, Verdict } from './types.js';

/** After this many attempts a delivery is marked failed. */
export const MAX_ATTEMPTS = 12;

/**
 * Answers that no retry changes: our request was wrong (400, 422) or what it names is not there (404,
 * 410). Anything else (5xx, 429, a rate-limited 403, no answer) is tried again.
 */
const FINAL = new Set([400, 404, 410, 422]);

export interface VerdictDeliveryOptions {
  leaseMs: number;
  pollMs: number;
  baseUrl: string;
  clock: () => number;
  /** The wait after failed attempt n when the forge did not say how long. */
  retryDelay: (attempt: number) => number;
}

export function verdictRunner(
  store: VerdictStore, forgeOf: (repositoryId: string) => ForgeAccess | null | Promise<ForgeAccess | null>, options: VerdictDeliveryOptions, log: FastifyBaseLogger,
) {
  const iso = (ms: number) => new Date(ms).toISOString();

  async function deliver(delivery: ForgeDeliveryRow): Promise<void> {
    const verdict = JSON.parse(delivery.payload) as Verdict;
    const access = await forgeOf(delivery.repository_id);
    const started = performance.now();
    let status: number | null = null;
    let body: string | null = null;
    let error: string | null = null;
    let wait: number | null = null;
    const heartbeat = setInterval(() => {
      store.renewLease(delivery, iso(options.clock() + options.leaseMs)).catch(() => undefined);
    }, Math.max(500, options.leaseMs / 3));
    try {
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
      status = 200;
    } catch (err) {
      if (err instanceof ForgeRefused) {
        status = err.answer.status;
        body = err.answer.text;
        wait = waitAskedFor(err.answer, options.clock());
      }
      // Never the token: errors name what was being done and the status, nothing sent.
      error = (err as Error).message;
    } finally {
      clearInterval(heartbeat);
    }
    const ok = error === null;
    const at = options.clock();
    const final = status !== null && FINAL.has(status);
    const next = ok ? { status: 'succeeded' as const, at: iso(at) }
      : final || delivery.attempts >= MAX_ATTEMPTS ? { status: 'failed' as const, at: iso(at) }
        : { status: 'pending' as const, nextAttemptAt: iso(at + (wait ?? options.retryDelay(delivery.attempts))) };
    const recorded = await store.record(delivery, {
      last_status_code: ok ? null : status, last_duration_ms: Math.round(performance.now() - started), last_response_body: body, last_error: error,
    }, next, { status_code: ok ? 200 : status, at: iso(at) });
    const fields = { delivery_id: delivery.id, repository_id: delivery.repository_id, kind: delivery.kind, attempt: delivery.attempts, status_code: status };
    if (!recorded) log.warn(fields, 'the claim on this forge delivery was lost to another worker; its attempt was not recorded');
    else if (ok) log.info(fields, 'verdict delivered to the forge');
    else log.info({ ...fields, error, outcome: next.status }, 'verdict delivery to the forge failed');
  }

  const claim = () => {
    const at = options.clock();
    return store.claim(iso(at), iso(at + options.leaseMs));
  };

  return {
    /** Sends every delivery due now, one after another (tests use it). */
    async deliverDue(): Promise<number> {
      let sent = 0;
      for (let claimed = await claim(); claimed; claimed = await claim()) {
        await deliver(claimed);
        sent++;
      }
      return sent;
    },

    /** `count` loops, each sending one delivery at a time. */
    start(count: number): Loops {
      return startLoops(count, options.pollMs, async () => {
        try {
          const claimed = await claim();
          if (!claimed) return false;
          await deliver(claimed);
          return true;
        } catch (err) {
          log.error({ err }, 'forge delivery worker failed');
          return false;
        }
      });
    },
  };
}
