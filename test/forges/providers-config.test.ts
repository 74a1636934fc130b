import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadOidcProviders, loadProviders, loadSamlProviders, ProviderConfigError } from '../../src/providers-config.js';

const SECRET = 'hunter2-do-not-print';
const entry = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'gh',
  type: 'github',
  name: 'GitHub',
  client_id: 'cid',
  client_secret: SECRET,
  ...over,
});
const inline = (...entries: unknown[]): Record<string, string> => ({ SERVICE_PROVIDERS: JSON.stringify(entries) });

function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'scanyard-providers-')), name);
  writeFileSync(path, text);
  return path;
}

function configError(env: Record<string, string | undefined>): string {
  try {
    loadProviders(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ProviderConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ProviderConfigError');
}

describe('loadProviders: valid input', () => {
  it('fills the defaults for every forge type', () => {
    const providers = loadProviders(
      inline(
        entry(),
        entry({ id: 'gl', type: 'gitlab', name: 'GitLab' }),
        entry({ id: 'tea', type: 'gitea', name: 'Gitea', url: 'https://gitea.example.com/' }),
        entry({ id: 'cb', type: 'forgejo', name: 'Codeberg', url: 'https://codeberg.org' }),
        entry({ id: 'bb', type: 'bitbucket', name: 'Bitbucket' }),
      ),
    );
    expect(providers.map(({ id, url, api_url, scopes }) => ({ id, url, api_url, scopes }))).toEqual([
      { id: 'gh', url: 'https://github.com', api_url: 'https://api.github.com', scopes: ['read:user', 'user:email', 'read:org'] },
      { id: 'gl', url: 'https://gitlab.com', api_url: 'https://gitlab.com/api/v4', scopes: ['read_user', 'read_api'] },
      { id: 'tea', url: 'https://gitea.example.com', api_url: 'https://gitea.example.com/api/v1', scopes: ['read:user'] },
      { id: 'cb', url: 'https://codeberg.org', api_url: 'https://codeberg.org/api/v1', scopes: ['read:user'] },
      { id: 'bb', url: 'https://bitbucket.org', api_url: 'https://api.bitbucket.org', scopes: ['account', 'email'] },
    ]);
    expect(providers[0]).toEqual({ ...entry(), url: 'https://github.com', api_url: 'https://api.github.com', scopes: ['read:user', 'user:email', 'read:org'], sync: null });
  });

  it('derives the GitHub Enterprise API, strips trailing slashes and keeps given scopes and api_url', () => {
    const [ghes, gl] = loadProviders(
      inline(
        entry({ url: 'https://ghe.corp.example//', scopes: ['read:user'] }),
        entry({ id: 'gl', type: 'gitlab', url: 'http://gitlab.local/sub/', api_url: 'http://api.gitlab.local/v4/' }),
      ),
    );
    expect(ghes).toMatchObject({ url: 'https://ghe.corp.example', api_url: 'https://ghe.corp.example/api/v3', scopes: ['read:user'] });
    expect(gl).toMatchObject({ url: 'http://gitlab.local/sub', api_url: 'http://api.gitlab.local/v4' });
  });

  it('reads a YAML file', () => {
    const path = tempFile(
      'providers.yaml',
      ['- id: corp', '  type: gitlab', '  name: Corp GitLab', '  client_id: abc', `  client_secret: ${SECRET}`, '  url: https://git.corp.example', '  scopes: [read_user, openid]'].join('\n'),
    );
    expect(loadProviders({ SERVICE_PROVIDERS_FILE: path })).toEqual([
      {
        id: 'corp',
        type: 'gitlab',
        name: 'Corp GitLab',
        client_id: 'abc',
        client_secret: SECRET,
        url: 'https://git.corp.example',
        api_url: 'https://git.corp.example/api/v4',
        scopes: ['read_user', 'openid'],
        sync: null,
      },
    ]);
  });

  it('reads a JSON file', () => {
    const path = tempFile('providers.json', JSON.stringify([entry()]));
    expect(loadProviders({ SERVICE_PROVIDERS_FILE: path })).toHaveLength(1);
  });

  it('returns no providers when neither variable is set (or both are blank)', () => {
    expect(loadProviders({})).toEqual([]);
    expect(loadProviders({ SERVICE_PROVIDERS: ' ', SERVICE_PROVIDERS_FILE: '' })).toEqual([]);
  });
});

describe('loadProviders: errors', () => {
  it('gives the documented message for an unknown type', () => {
    const env = inline(entry(), entry({ id: 'corp', type: 'gitbucket' }));
    expect(configError(env)).toBe(
      'SERVICE_PROVIDERS[1] (id "corp"): unknown type "gitbucket"; expected one of github, gitlab, gitea, forgejo, bitbucket, oidc, saml',
    );
  });

  const yamlBroken = tempFile('broken.yaml', `- id: x\n  client_secret: ${SECRET}\n    bad: indent`);
  const jsonBroken = tempFile('broken.json', `[{"client_secret": "${SECRET}",}]`);
  const cases: Array<[string, Record<string, string | undefined>, string]> = [
    ['both variables', { SERVICE_PROVIDERS: '[]', SERVICE_PROVIDERS_FILE: '/x.yaml' }, 'SERVICE_PROVIDERS and SERVICE_PROVIDERS_FILE are both set'],
    ['invalid JSON', { SERVICE_PROVIDERS: `[{"client_secret": "${SECRET}" oops}]` }, 'SERVICE_PROVIDERS: is not valid JSON (line 1, column'],
    ['invalid JSON file', { SERVICE_PROVIDERS_FILE: jsonBroken }, `SERVICE_PROVIDERS_FILE (${jsonBroken}): is not valid JSON`],
    ['invalid YAML', { SERVICE_PROVIDERS_FILE: yamlBroken }, `SERVICE_PROVIDERS_FILE (${yamlBroken}): is not valid YAML`],
    ['missing file', { SERVICE_PROVIDERS_FILE: '/nonexistent/p.yaml' }, 'SERVICE_PROVIDERS_FILE (/nonexistent/p.yaml): cannot read the file (ENOENT)'],
    ['not an array', { SERVICE_PROVIDERS: JSON.stringify(entry()) }, 'SERVICE_PROVIDERS: must be an array of providers, got an object'],
    ['entry not an object', inline('github'), 'SERVICE_PROVIDERS[0]: must be an object'],
    ['missing id', inline(entry({ id: undefined })), 'SERVICE_PROVIDERS[0]: id is missing'],
    ['id not url-safe', inline(entry({ id: 'Corp Git' })), 'SERVICE_PROVIDERS[0] (id "Corp Git"): id "Corp Git" may only contain a-z, 0-9'],
    ['duplicate id', inline(entry(), entry()), 'SERVICE_PROVIDERS[1] (id "gh"): id "gh" is already used by SERVICE_PROVIDERS[0]'],
    ['missing type', inline(entry({ type: undefined })), 'SERVICE_PROVIDERS[0] (id "gh"): type is missing'],
    ['missing name', inline(entry({ name: undefined })), 'SERVICE_PROVIDERS[0] (id "gh"): name is missing'],
    ['empty client_id', inline(entry({ client_id: '' })), 'SERVICE_PROVIDERS[0] (id "gh"): client_id must be a non-empty string, got ""'],
    ['missing client_secret', inline(entry({ client_secret: undefined })), 'SERVICE_PROVIDERS[0] (id "gh"): client_secret is missing'],
    ['client_secret not a string', inline(entry({ client_secret: 991234567 })), 'SERVICE_PROVIDERS[0] (id "gh"): client_secret must be a non-empty string'],
    ['gitea without url', inline(entry({ type: 'gitea' })), 'SERVICE_PROVIDERS[0] (id "gh"): url is required for type "gitea"'],
    ['forgejo without url', inline(entry({ type: 'forgejo' })), 'SERVICE_PROVIDERS[0] (id "gh"): url is required for type "forgejo"'],
    ['url not http(s)', inline(entry({ url: 'ftp://git.example' })), 'SERVICE_PROVIDERS[0] (id "gh"): url "ftp://git.example" must use http or https'],
    ['url not a URL', inline(entry({ url: 'git.example' })), 'SERVICE_PROVIDERS[0] (id "gh"): url is not a valid URL'],
    ['url with credentials', inline(entry({ url: `https://u:${SECRET}@git.example` })), 'SERVICE_PROVIDERS[0] (id "gh"): url must not contain credentials'],
    ['url with query', inline(entry({ url: 'https://git.example/?a=1' })), 'url "https://git.example/?a=1" must not have a query or fragment'],
    ['bad api_url', inline(entry({ api_url: 42 })), 'SERVICE_PROVIDERS[0] (id "gh"): api_url must be a string, got 42'],
    ['bitbucket elsewhere without api_url', inline(entry({ type: 'bitbucket', url: 'https://bb.test' })), 'api_url is required when a bitbucket url other than https://bitbucket.org is set'],
    ['scopes not an array', inline(entry({ scopes: 'read:user' })), 'SERVICE_PROVIDERS[0] (id "gh"): scopes must be an array of strings, got "read:user"'],
    ['scope with a space', inline(entry({ scopes: ['read:user user:email'] })), 'scopes must hold non-empty strings without spaces'],
    ['unknown field', inline(entry({ scope: ['x'] })), 'SERVICE_PROVIDERS[0] (id "gh"): unknown field "scope"; expected id, type, name'],
    ['file entries', { SERVICE_PROVIDERS_FILE: tempFile('p.json', JSON.stringify([entry({ type: 'svn' })])) }, '[0] (id "gh"): unknown type "svn"'],
  ];

  it.each(cases)('%s: one line naming the variable, no secret', (_, env, expected) => {
    const message = configError(env);
    expect(message).toContain(expected);
    expect(message).toMatch(/^SERVICE_PROVIDERS/);
    expect(message).not.toContain('\n');
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain('991234567');
  });
});

describe('sync credentials on a provider entry', () => {
  const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow-not-a-real-key\n-----END RSA PRIVATE KEY-----\n';
  const HOOK = 'hook-secret-do-not-print';

  it('reads a GitHub App (inline key or key file) and a GitLab/Gitea token', () => {
    const file = tempFile('app.pem', PEM);
    const [inlineKey, fromFile, gitlab, gitea] = loadProviders(inline(
      entry({ app_id: 12345, private_key: PEM, webhook_secret: HOOK }),
      entry({ id: 'gh2', app_id: '67890', private_key_file: file, webhook_secret: HOOK }),
      entry({ id: 'gl', type: 'gitlab', token: 'glpat-x', webhook_secret: HOOK }),
      entry({ id: 'tea', type: 'gitea', url: 'https://gitea.example', token: 'tok', webhook_secret: HOOK }),
    ));
    expect(inlineKey!.sync).toEqual({ kind: 'github_app', appId: '12345', privateKey: PEM, webhookSecret: HOOK });
    expect(fromFile!.sync).toMatchObject({ kind: 'github_app', appId: '67890', privateKey: PEM });
    expect(gitlab!.sync).toEqual({ kind: 'token', token: 'glpat-x', webhookSecret: HOOK });
    expect(gitea!.sync).toEqual({ kind: 'token', token: 'tok', webhookSecret: HOOK });
  });

  it.each([
    [{ app_id: 1, private_key: PEM }, 'webhook_secret is missing'],
    [{ private_key: PEM, webhook_secret: HOOK }, 'app_id'],
    [{ app_id: 1, webhook_secret: HOOK }, 'private_key'],
    [{ app_id: 1, private_key: 'not a pem', webhook_secret: HOOK }, 'PEM private key'],
    [{ app_id: 1, private_key: PEM, private_key_file: '/x', webhook_secret: HOOK }, 'not both'],
    [{ token: 'ghp-secret-value', webhook_secret: HOOK }, 'GitHub App'],
    [{ app_id: 1, private_key_file: '/no/such/key.pem', webhook_secret: HOOK }, 'cannot be read'],
  ])('refuses an incomplete or mixed GitHub App entry (%o) naming the problem and no secret', (fields, problem) => {
    const message = configError(inline(entry(fields)));
    expect(message).toContain(problem);
    for (const secret of [PEM.trim(), HOOK, SECRET, 'ghp-secret-value']) expect(message).not.toContain(secret);
  });

  it('refuses app fields on GitLab and a token without a webhook secret', () => {
    expect(configError(inline(entry({ type: 'gitlab', app_id: 1, token: 't', webhook_secret: HOOK })))).toContain('only for github');
    expect(configError(inline(entry({ type: 'gitlab', token: 'glpat-secret' })))).toContain('webhook_secret is missing');
  });
});

describe('loadOidcProviders', () => {
  const oidc = (over: Record<string, unknown> = {}) =>
    ({ id: 'sso', type: 'oidc', name: 'Corp SSO', issuer: 'https://login.example.com/realms/corp', client_id: 'scanyard', client_secret: SECRET, ...over });

  it('reads oidc entries beside forges, with the documented defaults, ids unique across both', () => {
    const env = inline(entry(), oidc());
    expect(loadProviders(env).map((p) => p.id)).toEqual(['gh']);
    expect(loadOidcProviders(env)).toEqual([{
      id: 'sso', type: 'oidc', name: 'Corp SSO', issuer: 'https://login.example.com/realms/corp', client_id: 'scanyard', client_secret: SECRET,
      scopes: ['openid', 'profile', 'email'], login_claim: 'preferred_username', name_claim: 'name', email_claim: 'email',
      groups_claim: 'groups', group_mappings: [], end_session: false,
    }]);
    expect(() => loadOidcProviders(inline(entry({ id: 'x' }), oidc({ id: 'x' })))).toThrow('id "x" is already used by SERVICE_PROVIDERS[0]');
  });

  it('keeps a trailing slash of the issuer (Okta and Entra ID compare it exactly) and reads group mappings', () => {
    const [p] = loadOidcProviders(inline(oidc({
      issuer: 'https://login.microsoftonline.com/tenant/v2.0/', groups_claim: 'roles',
      group_mappings: [{ group: 'sec', org: 'Acme', role: 'owner', team: 'payments' }, { group: 'dev', org: 'Acme', role: 'member' }],
    })));
    expect(p!.issuer).toBe('https://login.microsoftonline.com/tenant/v2.0/');
    expect(p!.group_mappings).toEqual([{ group: 'sec', org: 'Acme', role: 'owner', team: 'payments' }, { group: 'dev', org: 'Acme', role: 'member', team: null }]);
  });

  it.each([
    ['a missing issuer', oidc({ issuer: undefined }), 'issuer is missing'],
    ['a forge field', oidc({ url: 'https://x' }), 'unknown field "url"'],
    ['a bad role', oidc({ group_mappings: [{ group: 'g', org: 'o', role: 'admin' }] }), 'group_mappings[0].role must be "owner" or "member", got "admin"'],
    ['a mapping without org', oidc({ group_mappings: [{ group: 'g', role: 'member' }] }), 'group_mappings[0].org is missing'],
    ['end_session not boolean', oidc({ end_session: 'yes' }), 'end_session must be true or false'],
  ])('%s is refused with one line that holds no secret', (_, e, expected) => {
    let message = '';
    try {
      loadOidcProviders(inline(e));
    } catch (err) {
      expect(err).toBeInstanceOf(ProviderConfigError);
      message = (err as Error).message;
    }
    expect(message).toContain(expected);
    expect(message).not.toContain(SECRET);
  });
});

describe('loadSamlProviders', () => {
  const METADATA_FILE = fileURLToPath(new URL('../fixtures/saml/idp-metadata.xml', import.meta.url));
  const saml = (over: Record<string, unknown> = {}) =>
    ({ id: 'corp', type: 'saml', name: 'Corp SAML', idp_metadata_url: 'https://idp.example/app/metadata?appid=1', ...over });
  const error = (env: Record<string, string>, allowPrivate = false): string => {
    try {
      loadSamlProviders(env, allowPrivate);
    } catch (err) {
      expect(err).toBeInstanceOf(ProviderConfigError);
      return (err as Error).message;
    }
    return '';
  };

  it('reads saml entries beside the others, with the documented attribute defaults, ids unique across all', () => {
    const env = inline(entry(), saml({ group_mappings: [{ group: 'sec', org: 'Acme', role: 'owner' }] }));
    expect(loadProviders(env).map((p) => p.id)).toEqual(['gh']);
    expect(loadOidcProviders(env)).toEqual([]);
    expect(loadSamlProviders(env, false)).toEqual([{
      id: 'corp', type: 'saml', name: 'Corp SAML', idp_metadata_url: 'https://idp.example/app/metadata?appid=1', idp_metadata: null,
      login_attribute: 'uid', email_attribute: 'email', name_attribute: 'displayName', groups_attribute: 'groups',
      group_mappings: [{ group: 'sec', org: 'Acme', role: 'owner', team: null }],
    }]);
    expect(error(inline(entry({ id: 'x' }), saml({ id: 'x' })))).toContain('id "x" is already used by SERVICE_PROVIDERS[0]');
  });

  it('reads and checks idp_metadata_file at start', () => {
    const [p] = loadSamlProviders(inline(saml({ idp_metadata_url: undefined, idp_metadata_file: METADATA_FILE })), false);
    expect(p!.idp_metadata).toMatchObject({ entityId: 'https://idp.example/saml/idp', ssoUrl: 'https://idp.example/saml/sso' });
    expect(p!.idp_metadata!.certificates).toHaveLength(1);
  });

  it.each([
    ['both metadata keys', saml({ idp_metadata_file: METADATA_FILE }), 'set idp_metadata_url or idp_metadata_file, not both'],
    ['no metadata key', saml({ idp_metadata_url: undefined }), 'idp_metadata_url or idp_metadata_file is missing'],
    ['an http metadata URL', saml({ idp_metadata_url: 'http://idp.example/metadata' }), 'idp_metadata_url must use https (http only with SERVICE_SAML_ALLOW_PRIVATE=true)'],
    ['credentials in the metadata URL', saml({ idp_metadata_url: 'https://u:p@idp.example/m' }), 'idp_metadata_url must not contain credentials'],
    ['an unreadable metadata file', saml({ idp_metadata_url: undefined, idp_metadata_file: '/nonexistent/idp.xml' }), 'idp_metadata_file cannot be read (ENOENT)'],
    ['a metadata file without an IdP', saml({ idp_metadata_url: undefined, idp_metadata_file: tempFile('sp.xml', '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>') }),
      'idp_metadata_file: the metadata describes no SAML 2.0 identity provider'],
    ['a metadata file that is not XML', saml({ idp_metadata_url: undefined, idp_metadata_file: tempFile('idp.xml', '<EntityDescriptor') }), 'idp_metadata_file: the metadata is not well-formed XML'],
    ['an OIDC field', saml({ client_secret: SECRET }), 'unknown field "client_secret"'],
    ['an empty attribute name', saml({ groups_attribute: '' }), 'groups_attribute must be a non-empty string'],
    ['a bad mapping', saml({ group_mappings: [{ group: 'g', org: 'o', role: 'admin' }] }), 'group_mappings[0].role must be "owner" or "member"'],
  ])('%s stops the start with one line naming the key', (_, e, expected) => {
    const message = error(inline(e));
    expect(message).toContain('SERVICE_PROVIDERS');
    expect(message).toContain('(id "corp")');
    expect(message).toContain(expected);
  });

  it('takes an http metadata URL with SERVICE_SAML_ALLOW_PRIVATE (a lab IdP)', () => {
    expect(loadSamlProviders(inline(saml({ idp_metadata_url: 'http://127.0.0.1:9/metadata' })), true)[0]!.idp_metadata_url).toBe('http://127.0.0.1:9/metadata');
  });
});
