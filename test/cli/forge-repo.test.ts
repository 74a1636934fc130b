import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KINDS } from '../support/db.js';
import type { TestApp } from '../support/app.js';
import { sarifLog } from '../support/sarif.js';
import { startBitbucketEmulator, type BbWorkspace, type BitbucketEmulator } from '../support/forge-emulator/bitbucket.js';
import { forgeSession } from '../forge/helpers.js';
import { listeningApp, runCli, writeTemp } from './support.js';

const SARIF = sarifLog([{ rule: 'M1', file: 'src/a.ts', securitySeverity: 5 }]);

// An organisation named "Codeworks" here follows the Bitbucket workspace "codeworks-ws"; no sync pass runs.
describe.each(DB_KINDS)('the CLI\'s --repo by forge full name, against a listening server on %s', (kind) => {
  let bb: BitbucketEmulator;
  let ws: BbWorkspace;
  let t: TestApp & { url: string };
  let orgId: string;
  let cookie: string;
  let key: string;

  const repos = async () => (await t.request({ url: `/api/v1/orgs/${orgId}/repos?per_page=100`, headers: { cookie } })).json<{ id: string; name: string; full_name: string | null; forge_id: string | null }[]>();
  const env = () => ({ SCANYARD_URL: t.url, SCANYARD_KEY: key });

  beforeAll(async () => {
    bb = await startBitbucketEmulator();
    const alice = bb.addUser('alice');
    ws = bb.addWorkspace('codeworks-ws');
    ws.members.set(alice, 'owner');
    ws.repos.push({ uuid: bb.newUuid(), slug: 'payments-api', mainbranch: 'main', is_private: true });
    const provider = { id: 'bb', type: 'bitbucket', name: 'Bitbucket', client_id: 'c', client_secret: 's', url: bb.url, api_url: bb.apiUrl, token: bb.botToken, webhook_secret: 'secret' };
    t = await listeningApp(kind, { SERVICE_PROVIDERS: JSON.stringify([provider]), SERVICE_FORGE_ALLOW_PRIVATE: 'true' });
    cookie = (await forgeSession(t, 'bb', alice, 'alice', bb.tokenFor(alice))).cookie;
    orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie }, payload: { name: 'Codeworks' } })).json().id;
    key = await t.apiKey(cookie, { scopes: ['upload'] });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    await bb?.close();
  });

  it('finds no repository by a forge name while the organisation follows no forge', async () => {
    const run = await runCli(['upload', writeTemp('r.sarif', SARIF), '--repo', 'codeworks-ws/payments-api'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('repository codeworks-ws/payments-api was not found');
    expect(await repos()).toEqual([]);
  });

  it('uploads to a repository of the linked workspace by its full name before any sync, again to the same one, and judges its gate', async () => {
    const linked = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/forge`, headers: { cookie }, payload: { provider: 'bb', owner: 'codeworks-ws' } });
    expect(linked.statusCode, linked.body).toBe(200);
    const first = await runCli(['upload', writeTemp('r.sarif', SARIF), '--repo', 'codeworks-ws/payments-api', '--wait'], env());
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(await repos()).toEqual([expect.objectContaining({ name: 'payments-api', full_name: 'codeworks-ws/payments-api', forge_id: ws.repos[0]!.uuid })]);
    const again = await runCli(['upload', writeTemp('r.sarif', SARIF), '--repo', 'Codeworks-WS/payments-api', '--wait'], env());
    expect(again.code).toBe(0);
    const [repo] = await repos();
    expect((await repos())).toHaveLength(1);
    const uploads = (await t.request({ url: `/api/v1/repos/${repo!.id}/uploads`, headers: { cookie } })).json<unknown[]>();
    expect(uploads).toHaveLength(2);

    const gate = await runCli(['gate', '--repo', 'codeworks-ws/payments-api'], env());
    expect(gate.code, gate.stderr).toBe(0);
    expect(gate.stdout).toContain('codeworks-ws/payments-api');
  });

  it('names a repository the workspace does not have, and creates nothing', async () => {
    const run = await runCli(['upload', writeTemp('r.sarif', SARIF), '--repo', 'codeworks-ws/no-such-repo'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('codeworks-ws/no-such-repo');
    expect(run.stderr).toContain('404');
    expect(await repos()).toHaveLength(1);
  });
});
