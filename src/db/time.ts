/** Every timestamp we store: ISO 8601 in UTC with milliseconds, so text comparison is time order. */
export function now(): string {
  return new Date().toISOString();
}

export function inFuture(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}
