import { versionScheme } from '../domain/ecosystems/index.js';
import type { VersionScheme } from '../domain/ecosystems/types.js';
import type { AffectedPackage, RangeEvent } from './osv.js';

/**
 * Whether one installed version is affected by one affected-package entry of an OSV record, and the
 * nearest fixed versions above it. Pure. `versions[]` matches whatever the ranges say; SEMVER and
 * ECOSYSTEM ranges are evaluated with the ecosystem's ordering; GIT ranges name commits, which a
 * package version cannot be placed among, so only their `versions[]` count.
 */
export type MatchResult = { affected: false } | { affected: true; fixedVersions: string[] };

/** Null when the version cannot be ordered in the ecosystem: the component is unchecked. */
export function matchVersion(ecosystem: string, version: string, entry: Pick<AffectedPackage, 'ranges' | 'versions'>): MatchResult | null {
  const scheme = versionScheme(ecosystem, version);
  return scheme ? matchWith(scheme, version, entry) : null;
}

/** matchVersion with the ecosystem's ordering in hand, for a version it accepted. */
export function matchWith(scheme: VersionScheme, version: string, entry: Pick<AffectedPackage, 'ranges' | 'versions'>): MatchResult {
  let affected = entry.versions.includes(version);
  const fixed: string[] = [];
  for (const range of entry.ranges) {
    if (range.type === 'GIT') continue;
    const result = inRange(scheme, version, range.events);
    if (result === null || !result.affected) continue;
    affected = true;
    if (result.fixed !== null) fixed.push(result.fixed);
  }
  if (!affected) return NOT_AFFECTED;
  const unique = fixed.length < 2 ? fixed : [...new Set(fixed)].sort((a, b) => scheme.compare(a, b));
  return { affected: true, fixedVersions: unique };
}

const NOT_AFFECTED: MatchResult = { affected: false };

/**
 * OSV's evaluation: events sorted by version ("introduced: 0" lowest); walking them, an
 * `introduced` at or below the version makes it affected, a `fixed` or `limit` at or below it, or a
 * `last_affected` below it, makes it unaffected. Null when an event's version cannot be ordered.
 */
function inRange(scheme: VersionScheme, version: string, events: RangeEvent[]): { affected: boolean; fixed: string | null } | null {
  const points: { at: string | null; event: RangeEvent }[] = [];
  for (const event of events) {
    const at = event.introduced ?? event.fixed ?? event.last_affected ?? event.limit ?? '';
    if (event.introduced === '0') points.push({ at: null, event });
    else if (scheme.valid(at)) points.push({ at, event });
    else return null;
  }
  points.sort((a, b) => (a.at === null ? (b.at === null ? 0 : -1) : b.at === null ? 1 : scheme.compare(a.at, b.at)));
  let affected = false;
  let fixed: string | null = null;
  for (const { at, event } of points) {
    const passed = at === null ? 0 : scheme.compare(version, at);
    if (event.introduced !== undefined) {
      if (passed >= 0) affected = true;
    } else if (event.fixed !== undefined || event.limit !== undefined) {
      if (passed >= 0) affected = false;
      else if (affected && fixed === null && event.fixed !== undefined) fixed = event.fixed;
    } else if (event.last_affected !== undefined && passed > 0) {
      affected = false;
    }
    if (passed < 0) break;
  }
  return { affected, fixed: affected ? fixed : null };
}
