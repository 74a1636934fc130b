import { PackageURL } from 'packageurl-js';
import type { VersionScheme } from './types.js';
import { goScheme, semverScheme } from './semver.js';
import { pypiScheme } from './pypi.js';
import { mavenScheme } from './maven.js';
import { rubygemsScheme } from './rubygems.js';
import { nugetScheme } from './nuget.js';
import { composerScheme } from './composer.js';
import { dpkgScheme } from './dpkg.js';
import { apkScheme } from './apk.js';

/**
 * The registry of ecosystems: how a purl type maps to an OSV ecosystem, how that ecosystem spells
 * a package name when two spellings are one package, and how it orders versions. Nothing else
 * keeps a list of ecosystems.
 */
interface Ecosystem {
  /** OSV's name; Debian and Alpine are qualified by their release ("Debian:12", "Alpine:v3.18"). */
  osv: string;
  purlType: string;
  scheme: VersionScheme;
  /** The package name from a purl's namespace and name, as OSV records name it. */
  fromPurl(namespace: string | undefined, name: string): string;
  normalise(name: string): string;
  /** The release qualifier of OS ecosystems, from the purl's `distro` qualifier. */
  release?(distro: string): string | null;
}

const same = (name: string) => name;
const lower = (name: string) => name.toLowerCase();
const joined = (separator: string) => (namespace: string | undefined, name: string) => (namespace ? `${namespace}${separator}${name}` : name);

const ECOSYSTEMS: readonly Ecosystem[] = [
  { osv: 'npm', purlType: 'npm', scheme: semverScheme, fromPurl: joined('/'), normalise: same },
  // PEP 503: runs of -, _ and . are one -, case is ignored.
  { osv: 'PyPI', purlType: 'pypi', scheme: pypiScheme, fromPurl: joined('/'), normalise: (name) => name.replace(/[-_.]+/g, '-').toLowerCase() },
  { osv: 'Maven', purlType: 'maven', scheme: mavenScheme, fromPurl: joined(':'), normalise: same },
  { osv: 'Go', purlType: 'golang', scheme: goScheme, fromPurl: joined('/'), normalise: same },
  { osv: 'crates.io', purlType: 'cargo', scheme: semverScheme, fromPurl: joined('/'), normalise: same },
  { osv: 'RubyGems', purlType: 'gem', scheme: rubygemsScheme, fromPurl: joined('/'), normalise: same },
  { osv: 'NuGet', purlType: 'nuget', scheme: nugetScheme, fromPurl: joined('/'), normalise: lower },
  { osv: 'Packagist', purlType: 'composer', scheme: composerScheme, fromPurl: joined('/'), normalise: lower },
  { osv: 'Hex', purlType: 'hex', scheme: semverScheme, fromPurl: joined('/'), normalise: lower },
  { osv: 'Pub', purlType: 'pub', scheme: semverScheme, fromPurl: joined('/'), normalise: same },
  {
    osv: 'Debian', purlType: 'deb', scheme: dpkgScheme, fromPurl: (_namespace, name) => name, normalise: same,
    // "debian-12" or "debian-12.4" (Syft, Trivy) -> "12".
    release: (distro) => /^(?:debian-)?(\d+)(?:\.\d+)*$/.exec(distro)?.[1] ?? null,
  },
  {
    osv: 'Alpine', purlType: 'apk', scheme: apkScheme, fromPurl: (_namespace, name) => name, normalise: same,
    // "alpine-3.18.4" or "3.18" -> "v3.18".
    release: (distro) => {
      const match = /^(?:alpine-)?v?(\d+)\.(\d+)(?:\.\d+)*$/.exec(distro);
      return match ? `v${match[1]}.${match[2]}` : null;
    },
  },
];

const BY_OSV = new Map(ECOSYSTEMS.map((e) => [e.osv, e]));
const BY_PURL_TYPE = new Map(ECOSYSTEMS.map((e) => [e.purlType, e]));

function ecosystemOf(osvEcosystem: string): Ecosystem | undefined {
  return BY_OSV.get(osvEcosystem.split(':')[0]!);
}

/**
 * How a package is found: its OSV ecosystem (with release) and normalised name. Components and
 * advisories store it, so matching is an indexed equality. Null for an ecosystem we cannot order.
 */
export function packageKey(osvEcosystem: string, name: string): string | null {
  const ecosystem = ecosystemOf(osvEcosystem);
  return ecosystem ? `${osvEcosystem}|${ecosystem.normalise(name)}` : null;
}

export interface PurlPackage {
  ecosystem: string;
  name: string;
  version: string | null;
  key: string;
}

/** The package a purl names, or null when its type is no ecosystem we match (or it is no purl). */
export function packageOfPurl(purl: string): PurlPackage | null {
  let parsed: PackageURL;
  try {
    parsed = PackageURL.fromString(purl);
  } catch {
    return null;
  }
  const ecosystem = BY_PURL_TYPE.get(parsed.type);
  if (!ecosystem) return null;
  let osv = ecosystem.osv;
  if (ecosystem.release) {
    const distro = parsed.qualifiers?.distro;
    const release = distro ? ecosystem.release(distro) : null;
    if (release) osv = `${osv}:${release}`;
  }
  const name = ecosystem.fromPurl(parsed.namespace ?? undefined, parsed.name);
  return { ecosystem: osv, name, version: parsed.version ?? null, key: `${osv}|${ecosystem.normalise(name)}` };
}

/** Null when the ecosystem has no ordering here or the version is not one of its versions. */
export function versionScheme(osvEcosystem: string, version: string): VersionScheme | null {
  const scheme = ecosystemOf(osvEcosystem)?.scheme;
  return scheme && scheme.valid(version) ? scheme : null;
}
