import { v7 } from 'uuid';

/** Opaque, unguessable, and time-ordered so that indexes on ids stay append-mostly. */
export function newId(): string {
  return v7();
}
