import type { FastifyBaseLogger } from 'fastify';
import { startLoops, type Loops } from './loops.js';

/**
 * The delivery loop of a durable outbox (webhook deliveries, pull request verdicts): rows written in
 * the transaction of what they announce, claimed under a lease when due, attempted, and then
 * succeeded, retried later or given up on. What a row is, how it is claimed and how it is sent is
 * the outbox's own; the claim's `attempts` (incremented by the claim) is its fencing token.
 */

/** After this many attempts a delivery is marked failed. */
export const MAX_ATTEMPTS = 12;
const FIRST_RETRY_MS = 10_000;
const RETRY_GROWTH = 3;
const LONGEST_RETRY_MS = 5 * 3_600_000;

/**
 * How long to wait after failed attempt `attempt` (1-based): 10 s, 30 s, 90 s, 4.5 min, 13.5 min,
 * 40 min, 2 h, then 5 h, each ±20% so that receivers coming back are not hit by every sender at
 * once. The 12 attempts span about 23 hours.
 */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(FIRST_RETRY_MS * RETRY_GROWTH ** (attempt - 1), LONGEST_RETRY_MS);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** What comes after an attempt: done (either way), or another attempt at `nextAttemptAt`. */
export type NextStep = { status: 'succeeded' | 'failed'; at: string } | { status: 'pending'; nextAttemptAt: string };

/** What one attempt came to, as the delivery log keeps it. */
export interface Attempt {
  ok: boolean;
  /** The receiver's HTTP status; null when no answer came. */
  status: number | null;
  /** The start of the receiver's answer. */
  body: string | null;
  /** Why it failed, in words that name no secret. */
  error: string | null;
  /** How long the receiver asked to be left alone, when it said (Retry-After, a rate limit). */
  waitMs?: number | null;
  /** No retry can change the answer: give up now. */
  final?: boolean;
}

/** The columns of an attempt's outcome, as both outboxes store them. */
export interface AttemptColumns {
  last_status_code: number | null;
  last_duration_ms: number;
  last_response_body: string | null;
  last_error: string | null;
}

export interface Outbox<Claim> {
  /** The oldest due row (pending, or delivering under a lease that ran out), now delivering until `leaseUntil`. */
  claim(at: string, leaseUntil: string): Promise<Claim | undefined>;
  /** The claim's attempt number (its fencing token). */
  attempts(claim: Claim): number;
  /** Keeps the claim while the attempt runs; false once it was lost. */
  renewLease(claim: Claim, leaseUntil: string): Promise<boolean>;
  /** Sends it; a receiver's failure is an Attempt, not a throw. */
  attempt(claim: Claim): Promise<Attempt>;
  /** Records the attempt and the next step, only while the claim holds; false when it was lost. */
  record(claim: Claim, outcome: AttemptColumns, next: NextStep, at: string): Promise<boolean>;
  /** What the log says of a delivery (never a secret, nor a URL: chat webhook URLs carry one). */
  logFields(claim: Claim): Record<string, unknown>;
  /** The log's words: `${what} delivered`, `${what} delivery failed`. */
  what: string;
}

export interface OutboxOptions {
  /** How long a claim holds without renewal (renewed every third of it while sending). */
  leaseMs: number;
  /** How often an idle worker looks for due deliveries. */
  pollMs: number;
  /** Milliseconds since the epoch: injectable so tests can move time instead of waiting. */
  clock: () => number;
  /** The wait after failed attempt n when the receiver did not say how long. */
  retryDelay: (attempt: number) => number;
}

export interface OutboxRunner {
  /** Sends every delivery due now, one after another (tests use it); answers how many. */
  deliverDue(): Promise<number>;
  /**
   * Sends up to `senders` deliveries at once. One loop claims (so an idle instance asks the
   * database once per poll, not once per sender) and hands each claim to a send of its own; when
   * every sender is busy it waits for one to finish. Stopping waits for the sends in hand.
   */
  start(senders: number): Loops;
}

export function outboxRunner<Claim>(outbox: Outbox<Claim>, options: OutboxOptions, log: FastifyBaseLogger): OutboxRunner {
  const iso = (ms: number) => new Date(ms).toISOString();

  const claim = () => {
    const at = options.clock();
    return outbox.claim(iso(at), iso(at + options.leaseMs));
  };

  async function deliver(claimed: Claim): Promise<void> {
    const attempts = outbox.attempts(claimed);
    const started = performance.now();
    const heartbeat = setInterval(() => {
      outbox.renewLease(claimed, iso(options.clock() + options.leaseMs)).catch(() => undefined);
    }, Math.max(500, options.leaseMs / 3));
    let attempt: Attempt;
    try {
      attempt = await outbox.attempt(claimed);
    } finally {
      clearInterval(heartbeat);
    }
    const ms = Math.round(performance.now() - started);
    const at = options.clock();
    const next: NextStep = attempt.ok ? { status: 'succeeded', at: iso(at) }
      : attempt.final || attempts >= MAX_ATTEMPTS ? { status: 'failed', at: iso(at) }
        : { status: 'pending', nextAttemptAt: iso(at + (attempt.waitMs ?? options.retryDelay(attempts))) };
    const recorded = await outbox.record(claimed, {
      last_status_code: attempt.status, last_duration_ms: ms, last_response_body: attempt.body, last_error: attempt.error,
    }, next, iso(at));
    const fields = { ...outbox.logFields(claimed), attempt: attempts, status_code: attempt.status, ms };
    if (!recorded) log.warn(fields, `the claim on this ${outbox.what} delivery was lost to another worker; its attempt was not recorded`);
    else if (attempt.ok) log.info(fields, `${outbox.what} delivered`);
    else log.info({ ...fields, error: attempt.error, outcome: next.status }, `${outbox.what} delivery failed`);
  }

  return {
    async deliverDue() {
      let sent = 0;
      for (let claimed = await claim(); claimed; claimed = await claim()) {
        await deliver(claimed);
        sent++;
      }
      return sent;
    },

    start(senders) {
      const sending = new Set<Promise<void>>();
      const loop = startLoops(1, options.pollMs, async () => {
        if (sending.size >= senders) {
          await Promise.race(sending);
          return true;
        }
        let claimed: Claim | undefined;
        try {
          claimed = await claim();
        } catch (error) {
          log.warn({ err: error }, `could not claim a ${outbox.what} delivery; retrying`);
        }
        if (!claimed) return false;
        const taken = claimed;
        const send = deliver(taken).catch((error: unknown) => {
          // A database outage while recording: the claim expires and the delivery is sent again.
          log.error({ err: error, ...outbox.logFields(taken) }, `recording a ${outbox.what} delivery failed; it will be retried`);
        }).finally(() => {
          sending.delete(send);
          // The next delivery of the same receiver may have waited for this one.
          loop.wake();
        });
        sending.add(send);
        return true;
      });
      return {
        wake: loop.wake,
        async stop() {
          await loop.stop();
          await Promise.all(sending);
        },
      };
    },
  };
}

/** The columns every outbox row has besides its own. */
export interface OutboxRow {
  status: string;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_response_body: string | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
}

/** The delivery log's view of an outbox row's attempts: only a delivery waiting for its turn has a next attempt. */
export function presentAttempts(row: OutboxRow) {
  return {
    last_status_code: row.last_status_code,
    last_duration_ms: row.last_duration_ms,
    last_response_body: row.last_response_body,
    last_error: row.last_error,
    last_attempt_at: row.last_attempt_at,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}

/** An outbox's workers on this instance: `sendersPerWorker` sends per configured worker, woken when a row is written here. */
export function outboxWorkers(sendersPerWorker: number) {
  let pool: Loops | null = null;
  return {
    start(count: number, runner: OutboxRunner): void {
      if (count > 0) pool = runner.start(count * sendersPerWorker);
    },
    wake(): void {
      pool?.wake();
    },
    /** Stops claiming; resolves once the sends in hand are recorded. */
    async stop(): Promise<void> {
      await pool?.stop();
      pool = null;
    },
  };
}
