/**
 * Class 5: Swagger UI headers, names that hide or reorder text, owner-only local files, sign-in
 * errors from fixed codes, http(s) links only from scan files, /metrics in production.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sessionCookie, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { startForgeEmulator, type ForgeEmulator } from '../support/forge-emulator.js';
import { openDatabase } from '../../src/db/index.js';
import { resolveSessionSecret } from '../../src/auth/session.js';
import { loadConfig } from '../../src/config.js';
import { displayNameProblem } from '../../src/names.js';
import { SIGN_IN_ERRORS } from '../../src/auth/sign-in-errors.js';

describe('Swagger UI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('is served with the same security headers as the app', async () => {
    for (const url of ['/swagger/', '/swagger/static/swagger-ui-bundle.js', '/swagger/static/swagger-ui.css', '/swagger/static/swagger-initializer.js', '/swagger/doc.json', '/swagger/swagger.yaml']) {
      const res = await t.request({ url });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("object-src 'none'");
    }
    // And the API's own answers are never sniffed either.
    expect((await t.request({ url: '/api/v1/me' })).headers['x-content-type-options']).toBe('nosniff');
  });
});

const REFUSED_NAMES: [string, string][] = [
  ['zero-width space only', '\u200B'],
  ['zero-width joiners only', '\u200D\u200C\u2060'],
  ['byte order mark only', '\uFEFF'],
  ['Hangul filler', '\u3164'],
  ['half-width Hangul filler', '\uFFA0'],
  ['braille blank', '\u2800'],
  ['soft hyphen only', '\u00AD'],
  ['combining mark only', '\u0301'],
  ['tag characters only', '\u{E0061}\u{E0062}'],
  ['right-to-left override', 'payroll\u202Egnp.exe'],
  ['left-to-right isolate', 'a\u2066b\u2069'],
  ['right-to-left mark', 'name\u200F'],
  ['arabic letter mark', '\u061Cname'],
  ['zero-width space inside', 'ac\u200Bme'],
  ['zero-width joiner between Latin letters', 'ac\u200Dme'],
  ['soft hyphen inside', 'ac\u00ADme'],
  ['word joiner inside', 'ac\u2060me'],
  ['variation selector on a letter', 'acme\uFE0F'],
];

describe.each(DB_KINDS)('names on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let orgId: string;
  let repoId: string;
  let teamId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('namer'));
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'Names' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie }, payload: { name: 'r' } })).json().id;
    teamId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/teams`, headers: { cookie }, payload: { name: 't' } })).json().id;
    expect(repoId && teamId).toBeTruthy();
  });
  afterAll(() => t.close());

  const writes = () => [
    ['POST', '/api/v1/orgs'], ['PUT', `/api/v1/orgs/${orgId}`], ['POST', `/api/v1/orgs/${orgId}/repos`],
    ['POST', `/api/v1/orgs/${orgId}/teams`], ['PUT', `/api/v1/teams/${teamId}`], ['POST', '/api/v1/apikeys'],
  ] as const;

  it.each(REFUSED_NAMES)('refuses a name with %s, for orgs, repos, teams and keys', async (_what, name) => {
    for (const [method, url] of writes()) {
      const res = await t.request({ method, url, headers: { cookie }, payload: { name } });
      expect({ url, method, status: res.statusCode }).toEqual({ url, method, status: 400 });
      expect(res.json().errors).toContainEqual({ path: '/name', message: expect.stringContaining('visible character') });
    }
  });

  it('refuses a lone surrogate, high or low, sent as a JSON escape', async () => {
    for (const escape of ['\\ud800', 'ab\\udfff', '\\udc00\\ud800']) {
      for (const [method, url] of writes()) {
        const res = await t.request({ method, url, headers: { cookie, 'content-type': 'application/json' }, payload: `{"name":"${escape}"}` });
        expect({ url, escape, status: res.statusCode }).toEqual({ url, escape, status: 400 });
      }
    }
  });

  it('accepts names in any script, with emoji, the joiners Persian and Indic words are drawn with, and accents', async () => {
    for (const name of ['Équipe sécurité', '安全团队', 'فريق الأمن', '👩‍💻 devs', '🏳️‍🌈 ❤️', 'क्षत्रिय', 'می\u200Cخواهم', 'e\u0301te']) {
      expect(displayNameProblem(name)).toBeNull();
      const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/teams`, headers: { cookie }, payload: { name } });
      expect({ name, status: res.statusCode }).toEqual({ name, status: 201 });
      expect(res.json().name).toBe(name);
    }
  });
});

describe('local files', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanyard-perm-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const mode = (file: string) => fs.statSync(file).mode & 0o777;

  it('creates the SQLite data folder and files readable by the owner only', async () => {
    const data = path.join(dir, 'data', 'nested');
    const file = path.join(data, 'scanyard.db');
    const db = openDatabase({ kind: 'sqlite', file });
    try {
      await db.migrate();
      expect(mode(path.join(dir, 'data'))).toBe(0o700);
      expect(mode(data)).toBe(0o700);
      expect(mode(file)).toBe(0o600);
      expect(mode(`${file}-wal`)).toBe(0o600);
    } finally {
      await db.close();
    }
  });

  it('writes a generated session secret readable by the owner only, in an owner-only folder', () => {
    const data = path.join(dir, 'secret-home');
    const secret = resolveSessionSecret(null, data, pino({ level: 'silent' }));
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(mode(data)).toBe(0o700);
    expect(mode(path.join(data, 'session-secret'))).toBe(0o600);
  });
});

describe('sign-in errors', () => {
  let emulator: ForgeEmulator;
  let t: TestApp;
  beforeAll(async () => {
    emulator = await startForgeEmulator();
    const forge = emulator.addForge({ type: 'gitea', redirectUri: 'http://localhost:8080/auth/callback' });
    t = await createTestApp('sqlite', { SERVICE_PROVIDERS: JSON.stringify([{ id: 'gitea', ...forge.config, name: 'Gitea' }]) });
  });
  afterAll(async () => {
    await t.close();
    await emulator.close();
  });

  it('sends the login screen a fixed code, never the words the forge or the URL carried', async () => {
    for (const error of ['access_denied', '<img src=x onerror=alert(1)>', 'Your account is locked: call +1 555 0100']) {
      const login = await t.request({ url: '/auth/login/gitea' });
      const state = new URL(String(login.headers.location)).searchParams.get('state');
      const res = await t.request({ url: `/auth/callback?state=${state}&error=${encodeURIComponent(error)}&error_description=${encodeURIComponent(error)}`, headers: { cookie: sessionCookie(login) } });
      const code = new URL(String(res.headers.location), 'http://x').searchParams.get('error');
      expect(Object.values(SIGN_IN_ERRORS)).toContain(code);
      expect(res.headers.location).toBe(`/login?error=${error === 'access_denied' ? 'cancelled' : 'refused'}`);
    }
  });

  it('shows only its own sentence for each code on the login screen', () => {
    const screen = fs.readFileSync(path.resolve('web/src/features/auth/LoginScreen.tsx'), 'utf8');
    for (const code of Object.values(SIGN_IN_ERRORS)) expect(screen).toContain(`${code}: '`);
    // The value from the URL only ever picks a sentence; it is never rendered itself.
    expect(screen).not.toMatch(/\{code\}/);
    expect(screen).toMatch(/Object\.hasOwn\(SIGN_IN_ERRORS, code\) \? SIGN_IN_ERRORS\[code\] : SIGN_IN_FAILED/);
  });
});

describe.each(DB_KINDS)('links from scan files on %s', (kind) => {
  let t: TestApp;
  let cookie: string;
  let repoId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    ({ cookie } = await t.user('linker'));
    const org = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'links' } })).json().id;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${org}/repos`, headers: { cookie }, payload: { name: 'r' } })).json().id;
  });
  afterAll(() => t.close());

  const LINKS: Record<string, string | null> = {
    'https-rule': 'https://docs.example/rules/1',
    'http-rule': 'http://docs.example/rules/2',
    'js-rule': 'javascript:alert(document.cookie)',
    'js-mixed-case': ' JaVaScRiPt:alert(1)',
    'js-tab': 'java\tscript:alert(1)',
    'data-rule': 'data:text/html,<script>alert(1)</script>',
    'vbscript-rule': 'vbscript:msgbox(1)',
    'relative-rule': '/relative/path',
    'file-rule': 'file:///etc/passwd',
  };
  const KEPT: Record<string, string | null> = {
    'https-rule': 'https://docs.example/rules/1', 'http-rule': 'http://docs.example/rules/2',
  };

  async function findingsByRule(): Promise<Map<string, string | null>> {
    const res = await t.request({ url: `/api/v1/repos/${repoId}/findings?per_page=100`, headers: { cookie } });
    return new Map(res.json().map((f: { rule_id: string; help_uri: string | null }) => [f.rule_id, f.help_uri]));
  }

  it('keeps only http(s) help links from SARIF and from the findings format', async () => {
    const sarif = {
      version: '2.1.0',
      runs: [{
        tool: { driver: { name: 'Linky', rules: Object.entries(LINKS).map(([id, helpUri]) => ({ id, helpUri })) } },
        results: Object.keys(LINKS).map((ruleId) => ({ ruleId, message: { text: ruleId }, locations: [{ physicalLocation: { artifactLocation: { uri: 'a.js' } } }] })),
      }],
    };
    const generic = {
      schema: 'scanyard-findings/1', tool: { name: 'Generic linky' },
      findings: Object.entries(LINKS).map(([id, link]) => ({ rule_id: `g-${id}`, message: id, severity: 'low', help_uri: link })),
    };
    for (const payload of [sarif, generic]) {
      expect((await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload`, headers: { cookie }, payload })).statusCode).toBe(202);
    }
    await t.drain();
    const links = await findingsByRule();
    for (const rule of Object.keys(LINKS)) {
      expect({ rule, link: links.get(rule) }).toEqual({ rule, link: KEPT[rule] ?? null });
      expect({ rule, link: links.get(`g-${rule}`) }).toEqual({ rule, link: KEPT[rule] ?? null });
    }
    const stored = await t.db.kysely.selectFrom('findings').select('help_uri').where('help_uri', 'is not', null).execute();
    expect(stored.every((row) => /^https?:\/\//.test(row.help_uri!))).toBe(true);
  });

  it('does not present a non-http(s) link stored before the check existed', async () => {
    await t.db.kysely.updateTable('findings').set({ help_uri: 'javascript:alert(1)' }).where('rule_id', '=', 'https-rule').execute();
    expect((await findingsByRule()).get('https-rule')).toBeNull();
  });
});

describe('/metrics in production', () => {
  const production = { NODE_ENV: 'production', SERVICE_SESSION_SECRET: 'a'.repeat(32), DATABASE_URL: 'sqlite::memory:' };

  it('refuses to start without SERVICE_METRICS_TOKEN', () => {
    expect(() => loadConfig(production)).toThrow(/^SERVICE_METRICS_TOKEN is required when NODE_ENV=production/);
  });

  it('starts with a token, and /metrics then needs it', async () => {
    expect(loadConfig({ ...production, SERVICE_METRICS_TOKEN: 'tok' }).metricsToken).toBe('tok');
    const t = await createTestApp('sqlite', { SERVICE_METRICS_TOKEN: 'tok' });
    try {
      expect((await t.request({ url: '/metrics' })).statusCode).toBe(401);
      expect((await t.request({ url: '/metrics', headers: { authorization: 'Bearer tok' } })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
