import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, outboxRunner, type Attempt, type AttemptColumns, type NextStep } from '../../src/jobs/outbox.js';
import { quietLog } from '../support/scans.js';

const NOW = Date.parse('2026-11-29T01:00:00Z');

/** One row in memory, claimed as the stores claim it: due, attempts incremented, fenced by them. */
function memoryOutbox(attempts: Attempt[], startAt = 0) {
  const row = { attempts: startAt, status: 'pending', due: NOW };
  const recorded: { outcome: AttemptColumns; next: NextStep }[] = [];
  return {
    row, recorded,
    outbox: {
      what: 'test',
      async claim(at: string) {
        if (row.status !== 'pending' || row.due > Date.parse(at)) return undefined;
        row.status = 'delivering';
        return { attempts: ++row.attempts };
      },
      attempts: (c: { attempts: number }) => c.attempts,
      renewLease: async () => true,
      attempt: async () => attempts.shift()!,
      async record(c: { attempts: number }, outcome: AttemptColumns, next: NextStep) {
        if (c.attempts !== row.attempts) return false;
        recorded.push({ outcome, next });
        row.status = next.status;
        if (next.status === 'pending') row.due = Date.parse(next.nextAttemptAt);
        return true;
      },
      logFields: () => ({}),
    },
  };
}

const options = { leaseMs: 60_000, pollMs: 1000, clock: () => NOW, retryDelay: (n: number) => n * 1000 };
const failed = (status: number | null, more: Partial<Attempt> = {}): Attempt => ({ ok: false, status, body: null, error: 'no', ...more });

describe('the outbox delivery loop', () => {
  it('backs off by the retry delay, or as long as the receiver asked', async () => {
    const { outbox, recorded } = memoryOutbox([failed(502)]);
    expect(await outboxRunner(outbox, options, quietLog).deliverDue()).toBe(1);
    expect(recorded[0]!.next).toEqual({ status: 'pending', nextAttemptAt: new Date(NOW + 1000).toISOString() });
    expect(recorded[0]!.outcome).toMatchObject({ last_status_code: 502, last_error: 'no' });

    const asked = memoryOutbox([failed(429, { waitMs: 30_000 })]);
    await outboxRunner(asked.outbox, options, quietLog).deliverDue();
    expect(asked.recorded[0]!.next).toEqual({ status: 'pending', nextAttemptAt: new Date(NOW + 30_000).toISOString() });
  });

  it('gives up on a final answer at once, and on any after the last attempt', async () => {
    const final = memoryOutbox([failed(404, { final: true })]);
    await outboxRunner(final.outbox, options, quietLog).deliverDue();
    expect(final.recorded[0]!.next.status).toBe('failed');

    const last = memoryOutbox([failed(null)], MAX_ATTEMPTS - 1);
    await outboxRunner(last.outbox, options, quietLog).deliverDue();
    expect(last.recorded.map((r) => r.next.status)).toEqual(['failed']);
  });

  it('records a success as done', async () => {
    const { outbox, recorded, row } = memoryOutbox([{ ok: true, status: 204, body: '', error: null }]);
    await outboxRunner(outbox, options, quietLog).deliverDue();
    expect(recorded[0]!.next).toEqual({ status: 'succeeded', at: new Date(NOW).toISOString() });
    expect(row.status).toBe('succeeded');
  });
});
