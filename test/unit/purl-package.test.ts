import { PackageURL } from 'packageurl-js';
import { describe, expect, it } from 'vitest';
import { packageOf } from '../../src/vex/match.js';

/** What packageOf answered before it took plain purls without parsing them: packageurl-js itself. */
function parsed(purl: string): { product: string; version: string } | null {
  try {
    const p = PackageURL.fromString(purl);
    return { product: new PackageURL(p.type, p.namespace, p.name, undefined, undefined, undefined).toString(), version: p.version ?? '' };
  } catch {
    return null;
  }
}

const TRICKY = [
  // Plain: taken without parsing.
  'pkg:npm/lodash@4.17.21', 'pkg:npm/lodash', 'pkg:pypi/requests@2.31.0', 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
  'pkg:gem/rails@7.0.0.rc1', 'pkg:cargo/serde@1.0.0+build.5', 'pkg:nuget/newtonsoft.json@13.0.1', 'pkg:composer/laravel/framework@v10.0.0',
  'pkg:npm/a.b-c@1.0.0-beta_1~2', 'pkg:npm/..@1', 'pkg:npm/a/b/c@1',
  // Normalised by packageurl-js: case, PEP 503 names, encoded characters, npm scopes.
  'pkg:NPM/Lodash@4.17.21', 'pkg:npm/Lodash@1', 'pkg:pypi/Django_REST_framework@3.14.0', 'pkg:pypi/zope.interface@6.0', 'pkg:pypi/foo_bar',
  'pkg:npm/%40angular/core@17.0.0', 'pkg:npm/@angular/core@17.0.0', 'pkg:npm/@Angular/Core@17.0.0', 'pkg:npm/%61bc@1', 'pkg:npm/a%2Fb@1',
  'pkg:maven/org.example/Name@1.0', 'pkg:maven/name@1.0', 'pkg:composer/Laravel/Framework@1', 'pkg:github/Actions/Checkout@v4',
  // Qualifiers, subpaths, odd versions and other types.
  'pkg:npm/lodash@4.17.21?foo=bar', 'pkg:npm/lodash@4.17.21#lib/x', 'pkg:deb/debian/curl@7.50.3-1?arch=i386&distro=jessie',
  'pkg:rpm/fedora/curl@7.50.3-1.fc25?arch=i386', 'pkg:npm/lodash@', 'pkg:npm/lodash@1@2', 'pkg:npm/lodash@1%402', 'pkg:npm/lodash@%zz',
  'pkg:npm/lodash@1 2', 'pkg:npm/lodash@1/2', 'pkg:npm//lodash@1', 'pkg:npm/lodash/@1', 'pkg://npm/lodash@1', 'pkg:npm/ lodash@1',
  'pkg:golang/github.com/Azure/go-autorest@v14.2.0+incompatible', 'pkg:golang/golang.org/x/net@v0.0.0-20220127200216-cd36cc0744dd',
  'pkg:golang/example.com/mod@vbad', 'pkg:cran/ggplot2', 'pkg:cran/ggplot2@3.4.0', 'pkg:swift/github.com/apple/swift-nio@2.0.0',
  'pkg:pub/flutter-foo@1.0.0', 'pkg:pub/flutter_foo@1.0.0', 'pkg:conan/openssl@3.0.0', 'pkg:oci/debian@sha256%3Aabc', 'pkg:huggingface/org/Model@ABC',
  'pkg:docker/library/nginx@1.25', 'pkg:generic/openssl@3.0.0', 'pkg:npm', 'pkg:', 'npm/lodash@1', 'not a purl', '',
];

describe('packageOf', () => {
  it('agrees with packageurl-js on every form of purl', () => {
    for (const purl of TRICKY) expect(packageOf(purl), purl).toEqual(parsed(purl));
  });

  it('agrees with packageurl-js on generated plain and nearly plain purls', () => {
    const types = ['npm', 'pypi', 'gem', 'cargo', 'nuget', 'composer', 'maven', 'golang', 'pub', 'cran', 'swift', 'Npm'];
    const paths = ['x', 'a.b', 'a-b', 'a_b', 'A', 'ns/x', 'ns.org/x-y', '@s/x', '%40s/x', 'a%20b', 'ns//x', 'x/'];
    const versions = ['', '@1.0.0', '@v1.2.3', '@1.0.0-rc.1+b2', '@1_0~2', '@V1', '@1%2B2', '@', '@a b', '?q=1', '@1#sub'];
    for (const type of types) for (const path of paths) for (const version of versions) {
      const purl = `pkg:${type}/${path}${version}`;
      expect(packageOf(purl), purl).toEqual(parsed(purl));
    }
  });
});
