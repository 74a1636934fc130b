/**
 * One version-ordering scheme. `compare` is only ever called with versions `valid` accepted, so a
 * version a scheme cannot read is reported as unchecked rather than guessed at.
 */
export interface VersionScheme {
  valid(version: string): boolean;
  /** Negative, zero or positive as `a` sorts before, with or after `b`. */
  compare(a: string, b: string): number;
}
