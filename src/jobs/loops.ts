/**
 * The loop every kind of queued work runs (uploads, webhook deliveries): `count` loops that each
 * take one piece of work at a time, sleep `pollMs` when there is none unless woken, and finish the
 * piece in hand when stopped. What a piece of work is, and how a claim is taken, is the caller's.
 */
export interface Loops {
  /** Wakes idle loops now: new work has arrived on this instance. */
  wake(): void;
  /** Stops taking work; resolves once the work in hand is finished. */
  stop(): Promise<void>;
}

/** `next` does one piece of work and says whether there was any; it must not throw. */
export function startLoops(count: number, pollMs: number, next: () => Promise<boolean>): Loops {
  let stopping = false;
  const sleepers = new Set<() => void>();
  const wake = () => {
    for (const resolve of sleepers) resolve();
    sleepers.clear();
  };
  const idle = () => new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      sleepers.delete(done);
      resolve();
    }, pollMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    sleepers.add(done);
  });
  const loop = async () => {
    while (!stopping) {
      if (await next()) {
        // better-sqlite3 answers synchronously, so without this a backlog would be drained without
        // ever letting HTTP requests, timers or signals in.
        await new Promise<void>((resolve) => setImmediate(resolve));
      } else {
        await idle();
      }
    }
  };
  const loops = Array.from({ length: count }, loop);
  return {
    wake,
    async stop() {
      stopping = true;
      wake();
      await Promise.all(loops);
    },
  };
}
