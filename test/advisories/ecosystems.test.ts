import { describe, expect, it } from 'vitest';
import { packageKey, packageOfPurl, versionScheme } from '../../src/domain/ecosystems/index.js';

/** Each list is in ascending order as the ecosystem's own documentation gives it; `=` marks equals. */
function ordered(ecosystem: string, versions: string[]): void {
  const scheme = versionScheme(ecosystem, versions[0]!.replace(/^= /, ''));
  expect(scheme, `${ecosystem} reads ${versions[0]}`).not.toBeNull();
  for (let i = 1; i < versions.length; i++) {
    const equal = versions[i]!.startsWith('= ');
    const a = versions[i - 1]!.replace(/^= /, '');
    const b = versions[i]!.replace(/^= /, '');
    expect(versionScheme(ecosystem, b), `${ecosystem} reads ${b}`).not.toBeNull();
    const result = Math.sign(scheme!.compare(a, b));
    expect(result, `${ecosystem}: ${a} ${equal ? '=' : '<'} ${b}`).toBe(equal ? 0 : -1);
    expect(Math.sign(scheme!.compare(b, a)), `${ecosystem}: ${b} ${equal ? '=' : '>'} ${a}`).toBe(equal ? 0 : 1);
  }
}

describe('version ordering per ecosystem', () => {
  it('npm: SemVer 2 prereleases order before their release, numerically by identifier', () => {
    ordered('npm', ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.10.0']);
    expect(versionScheme('npm', '1.2')).toBeNull();
  });

  it('Go: pseudo-versions order before the release they precede; OSV leaves out the v', () => {
    ordered('Go', ['v0.0.0-20191109021931-daa7c04131f5', 'v0.0.1', 'v1.9.0-rc.1', 'v1.9.0', '= 1.9.0', 'v1.9.1-0.20230101000000-abcdefabcdef', 'v1.9.1', 'v2.0.0+incompatible']);
  });

  it('PyPI: PEP 440 dev < pre < release < post, epochs first', () => {
    ordered('PyPI', ['1.0.dev456', '1.0a1', '1.0a2.dev456', '1.0a12', '1.0b1.dev456', '1.0b2', '1.0rc1', '1.0', '= 1.0.0', '1.0+abc.5', '1.0.post456.dev34', '1.0.post456', '1.1.dev1', '1!0.5']);
    expect(versionScheme('PyPI', 'not a version')).toBeNull();
  });

  it('Maven: qualifiers alpha < beta < milestone < rc < snapshot < release < sp', () => {
    ordered('Maven', ['1.0-alpha1', '1.0-beta1', '1.0-milestone1', '1.0-rc1', '= 1.0-cr1', '1.0-SNAPSHOT', '1.0', '= 1', '= 1.0.0', '= 1-ga', '= 1.final', '1.0-sp1', '1.0.1', '1.1']);
    ordered('Maven', ['1-foo2', '1-foo10']);
    ordered('Maven', ['1.foo', '= 1-foo', '1-1', '1.1']);
    ordered('Maven', ['1-a1', '= 1-alpha-1', '1-b1']);
    ordered('Maven', ['2.14.1', '2.15.0', '2.16.0', '2.17.0']);
  });

  it('RubyGems: a letter segment is a prerelease', () => {
    ordered('RubyGems', ['1.0.0.a', '1.0.0.pre', '1.0.0.rc1', '1.0.0', '1.0.1', '1.10']);
  });

  it('NuGet: a fourth number, missing numbers are zero, labels case-insensitive', () => {
    ordered('NuGet', ['1.0.0-alpha', '= 1.0.0-ALPHA', '1.0.0-beta.2', '1.0.0-beta.11', '1.0', '= 1.0.0.0', '1.0.0.1', '1.0.1']);
  });

  it('Packagist: dev < alpha < beta < RC < release < patch, four numbers', () => {
    ordered('Packagist', ['1.0.0-dev', '1.0.0-alpha1', '1.0.0-beta2', '1.0.0-RC1', '1.0', '= v1.0.0', '= 1.0.0.0', '1.0.0-p1', '1.0.1', '1.10.0']);
  });

  it('Debian: epochs first, ~ before everything even the end, per Debian Policy 5.6.12', () => {
    ordered('Debian:12', ['1.0~rc1', '1.0', '1.0-1', '1.0-1+deb12u1', '1.0-2', '1.0a', '1.0+b1', '1.1', '2:0.1', '= 2:0.1-0']);
    ordered('Debian:12', ['1.0~~', '1.0~~a', '1.0~', '1.0']);
    ordered('Debian:12', ['7.88.1-10', '7.88.1-10+deb12u4', '7.88.1-10+deb12u5']);
    expect(versionScheme('Debian:12', 'a1.0')).toBeNull();
  });

  it('Alpine: suffixes around the release, then -r revisions', () => {
    ordered('Alpine:v3.18', ['1.2.3_alpha', '1.2.3_beta2', '1.2.3_pre1', '1.2.3_rc1', '1.2.3', '1.2.3-r1', '1.2.3-r10', '1.2.3_p1', '1.2.3a', '1.2.4', '1.10']);
  });

  it('an ecosystem with no ordering here is unchecked', () => {
    expect(versionScheme('Hackage', '1.0')).toBeNull();
  });
});

describe('package names and purls', () => {
  it('maps each purl type to its OSV ecosystem and normalised name', () => {
    const cases: [string, string, string | null][] = [
      ['pkg:npm/%40babel/core@7.0.0', 'npm|@babel/core', '7.0.0'],
      ['pkg:pypi/Django_Rest.Framework@3.0', 'PyPI|django-rest-framework', '3.0'],
      ['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1', 'Maven|org.apache.logging.log4j:log4j-core', '2.14.1'],
      ['pkg:golang/github.com/gin-gonic/gin@v1.9.0', 'Go|github.com/gin-gonic/gin', 'v1.9.0'],
      ['pkg:cargo/serde@1.0.0', 'crates.io|serde', '1.0.0'],
      ['pkg:gem/rails@7.0.0', 'RubyGems|rails', '7.0.0'],
      ['pkg:nuget/Newtonsoft.Json@13.0.1', 'NuGet|newtonsoft.json', '13.0.1'],
      ['pkg:composer/Laravel/Framework@10.0.0', 'Packagist|laravel/framework', '10.0.0'],
      ['pkg:hex/plug@1.0.0', 'Hex|plug', '1.0.0'],
      ['pkg:pub/http@1.0.0', 'Pub|http', '1.0.0'],
      ['pkg:deb/debian/curl@7.88.1-10%2Bdeb12u4?arch=amd64&distro=debian-12', 'Debian:12|curl', '7.88.1-10+deb12u4'],
      ['pkg:apk/alpine/musl@1.2.4-r2?arch=x86_64&distro=alpine-3.18.4', 'Alpine:v3.18|musl', '1.2.4-r2'],
      ['pkg:npm/lodash', 'npm|lodash', null],
    ];
    for (const [purl, key, version] of cases) {
      expect(packageOfPurl(purl), purl).toMatchObject({ key, version });
    }
    expect(packageOfPurl('pkg:github/actions/checkout@v4')).toBeNull();
    expect(packageOfPurl('not a purl')).toBeNull();
  });

  it('normalises an advisory\'s package name the way a purl\'s is', () => {
    expect(packageKey('PyPI', 'Django_REST.framework')).toBe('PyPI|django-rest-framework');
    expect(packageKey('Debian:12', 'curl')).toBe('Debian:12|curl');
    expect(packageKey('Hackage', 'aeson')).toBeNull();
  });
});
