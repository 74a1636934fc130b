import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { orgClient } from '../support/orgs.js';
import { sarifLog } from '../support/sarif.js';
import { startReceiver, type Receiver, type Received } from '../support/webhook-receiver.js';
import { commonMark } from '../support/markdown.js';
import { version } from '../../src/version.js';
import type { OutboxRunner } from '../../src/jobs/outbox.js';

const SECRET = 'whsec-super-secret-value-0123456789';

interface Hook { id: string; org_id: string; url: string; events: string[]; min_severity: string; format: string; active: boolean; repository_ids: string[] | null }
interface Delivery { id: string; event: string; status: string; attempts: number; last_status_code: number | null; last_duration_ms: number | null; last_response_body: string | null; last_error: string | null; next_attempt_at: string | null; last_attempt_at: string | null }

// A received body, read field by field as a receiver would.
const parse = (r: Received) => JSON.parse(r.body);

describe.each(DB_KINDS)('webhooks on %s', (kind) => {
  let t: TestApp;
  const logLines: string[] = [];
  type Person = { cookie: string; user: { id: string } };
  let owner: Person;
  let member: Person;
  let stranger: Person;
  let orgId: string;
  let repoId: string;
  let otherRepoId: string;
  let foreignRepoId: string;
  let foreignOrgId: string;
  let uploadKey: string;
  /** How far the delivery runner's clock is ahead of the real one: moved instead of waiting for retries. */
  let ahead = 0;
  const clock = () => Date.now() + ahead;
  let runner: OutboxRunner;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => logLines.push(...chunk.toString().split('\n').filter(Boolean)));
    t = await createTestApp(kind, { SERVICE_WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'debug' }, { stream });
    const api = orgClient(t);
    [owner, member, stranger] = await Promise.all([t.user('owner'), t.user('member'), t.user('stranger')]);
    orgId = (await api.createOrg(owner.cookie, 'hooked')).id;
    await api.setMember(owner.cookie, orgId, member.user.id, 'member');
    repoId = (await api.createRepo(owner.cookie, orgId, { name: 'api' })).id;
    otherRepoId = (await api.createRepo(owner.cookie, orgId, { name: 'web' })).id;
    const foreignOrg = await api.createOrg(stranger.cookie, 'elsewhere');
    foreignOrgId = foreignOrg.id;
    foreignRepoId = (await api.createRepo(stranger.cookie, foreignOrg.id, { name: 'theirs' })).id;
    uploadKey = await t.apiKey(owner.cookie, { scopes: ['upload'] });
    runner = t.app.services.webhooks.runner(t.app.log, { clock });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await t.close();
  });
  afterEach(async () => {
    // Every test leaves nothing due behind for the next one.
    await t.db.kysely.updateTable('webhooks').set({ active: 0 }).execute();
  });

  const receiver = async (respond?: Parameters<typeof startReceiver>[1]) => {
    const r = await startReceiver(SECRET, respond);
    receivers.push(r);
    return r;
  };
  const call = (cookie: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
    t.request({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });
  const createHook = async (body: Record<string, unknown>): Promise<Hook> => {
    const res = await call(owner.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks`, { secret: SECRET, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<Hook>();
  };
  const deliveries = async (hook: Hook): Promise<Delivery[]> => {
    const res = await call(owner.cookie, 'GET', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/deliveries?per_page=100`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Delivery[]>();
  };
  const upload = async (body: string, repo = repoId, query = '') => {
    const res = await t.request({
      method: 'POST', url: `/api/v1/repos/${repo}/upload${query}`,
      headers: { authorization: `Bearer ${uploadKey}`, 'content-type': 'application/sarif+json' }, payload: body,
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    return res.json<{ id: string }>().id;
  };

  it('creates, reads, updates and deletes a hook without ever answering its secret', async () => {
    const r = await receiver();
    const res = await call(owner.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks`, {
      url: `${r.url}/hook`, secret: SECRET, events: ['upload.completed', 'findings.new'], min_severity: 'high', format: 'slack', repository_ids: [repoId],
    });
    expect(res.statusCode, res.body).toBe(201);
    const hook = res.json<Hook>();
    expect(res.headers.location).toBe(`/api/v1/orgs/${orgId}/webhooks/${hook.id}`);
    expect(hook).toEqual({
      id: expect.any(String), org_id: orgId, url: `${r.url}/hook`, events: ['upload.completed', 'findings.new'], min_severity: 'high',
      format: 'slack', active: true, repository_ids: [repoId], created_at: expect.any(String), updated_at: expect.any(String),
    });
    const bodies = [res.body];
    const got = await call(owner.cookie, 'GET', res.headers.location as string);
    expect(got.json()).toEqual(hook);
    bodies.push(got.body);
    const list = await call(owner.cookie, 'GET', `/api/v1/orgs/${orgId}/webhooks`);
    expect(list.json<Hook[]>().map((h) => h.id)).toContain(hook.id);
    bodies.push(list.body);
    const updated = await call(owner.cookie, 'PUT', `/api/v1/orgs/${orgId}/webhooks/${hook.id}`, { secret: 'another-secret-9876', active: false, repository_ids: null });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({ active: false, repository_ids: null, format: 'slack' });
    bodies.push(updated.body);
    const audit = await call(owner.cookie, 'GET', `/api/v1/orgs/${orgId}/audit`);
    bodies.push(audit.body);
    for (const body of bodies) {
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain('another-secret-9876');
      expect(body).not.toContain('"secret"');
    }
    expect((await call(owner.cookie, 'DELETE', `/api/v1/orgs/${orgId}/webhooks/${hook.id}`)).statusCode).toBe(204);
    expect((await call(owner.cookie, 'GET', `/api/v1/orgs/${orgId}/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await call(owner.cookie, 'DELETE', `/api/v1/orgs/${orgId}/webhooks/${hook.id}`)).statusCode).toBe(404);
  });

  it('refuses invalid settings with a 400 naming each field', async () => {
    const post = (body: Record<string, unknown>) => call(owner.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks`, { url: 'https://hooks.example.com/x', secret: SECRET, events: ['upload.completed'], ...body });
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://example.com/hook' }, '/url'],
      [{ url: 'not a url' }, '/url'],
      [{ url: 'https://user:pass@example.com/hook' }, '/url'],
      [{ events: [] }, '/events'],
      [{ events: ['upload.exploded'] }, '/events/0'],
      [{ format: 'discord' }, '/format'],
      [{ min_severity: 'severe' }, '/min_severity'],
      [{ secret: 'short' }, '/secret'],
      [{ repository_ids: [foreignRepoId] }, '/repository_ids/0'],
      [{ repository_ids: [repoId, 'no-such-repo'] }, '/repository_ids/1'],
      [{ colour: 'red' }, '/colour'],
    ];
    for (const [body, path] of cases) {
      const res = await post(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path), JSON.stringify(body)).toContain(path);
    }
    const named = (await post({ repository_ids: [repoId, foreignRepoId, 'no-such-repo'] })).json<{ errors: unknown[] }>();
    expect(named.errors).toEqual([
      { path: '/repository_ids/1', message: `"${foreignRepoId}" is not a repository of this organization` },
      { path: '/repository_ids/2', message: '"no-such-repo" is not a repository of this organization' },
    ]);
    const hook = await createHook({ url: 'https://hooks.example.com/x', events: ['upload.completed'] });
    const put = await call(owner.cookie, 'PUT', `/api/v1/orgs/${orgId}/webhooks/${hook.id}`, { url: 'gopher://example.com' });
    expect(put.statusCode).toBe(400);
    expect((await call(owner.cookie, 'PUT', `/api/v1/orgs/${orgId}/webhooks/${hook.id}`, { events: 'all' })).statusCode).toBe(400);
  });

  it('answers odd requests with a problem, never a 500', async () => {
    const base = `/api/v1/orgs/${orgId}/webhooks`;
    const asText = await t.request({ method: 'POST', url: base, headers: { cookie: owner.cookie, 'content-type': 'text/plain' }, payload: 'url=x' });
    expect(asText.statusCode).toBe(415);
    const huge = await t.request({ method: 'POST', url: base, headers: { cookie: owner.cookie, 'content-type': 'application/json' }, payload: JSON.stringify({ url: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(huge.statusCode).toBe(413);
    const broken = await t.request({ method: 'POST', url: base, headers: { cookie: owner.cookie, 'content-type': 'application/json' }, payload: '{"url": ' });
    expect(broken.statusCode).toBe(400);
    expect((await call(owner.cookie, 'GET', `${base}/not-a-hook`)).statusCode).toBe(404);
    expect((await call(owner.cookie, 'GET', `${base}/not-a-hook/deliveries`)).statusCode).toBe(404);
    expect((await call(owner.cookie, 'GET', `/api/v1/orgs/not-an-org/webhooks`)).statusCode).toBe(404);
    expect((await call(owner.cookie, 'POST', `${base}?page=x`, { url: 'https://93.184.215.14/', secret: SECRET, events: ['ping'] })).statusCode).toBe(400);
  });

  it('lets only owners see or change hooks; a hook of another org is not found', async () => {
    const hook = await createHook({ url: 'https://hooks.example.com/y', events: ['upload.completed'] });
    const base = `/api/v1/orgs/${orgId}/webhooks`;
    expect((await call(member.cookie, 'GET', base)).statusCode).toBe(403);
    expect((await call(member.cookie, 'GET', `${base}/${hook.id}`)).statusCode).toBe(403);
    expect((await call(member.cookie, 'POST', base, { url: 'https://hooks.example.com/z', secret: SECRET, events: ['upload.completed'] })).statusCode).toBe(403);
    expect((await call(stranger.cookie, 'GET', base)).statusCode).toBe(404);
    expect((await call(stranger.cookie, 'GET', `${base}/${hook.id}/deliveries`)).statusCode).toBe(404);
    const theirOrg = (await call(stranger.cookie, 'GET', '/api/v1/orgs')).json<{ id: string }[]>()[0]!.id;
    expect((await call(stranger.cookie, 'GET', `/api/v1/orgs/${theirOrg}/webhooks/${hook.id}`)).statusCode).toBe(404);
  });

  it('delivers a signed ping on creation with every header a receiver checks', async () => {
    const r = await receiver();
    const hook = await createHook({ url: `${r.url}/ping`, events: ['upload.failed'] });
    expect(await runner.deliverDue()).toBe(1);
    expect(r.received).toHaveLength(1);
    const [ping] = r.received;
    expect(ping!.method).toBe('POST');
    expect(ping!.path).toBe('/ping');
    expect(ping!.signatureValid).toBe(true);
    expect(ping!.headers).toMatchObject({
      'content-type': 'application/json', 'user-agent': `Scanyard-Hookshot/${version}`, 'x-scanyard-event': 'ping',
    });
    const body = parse(ping!);
    expect(body).toMatchObject({ event: 'ping', delivery: ping!.headers['x-scanyard-delivery'], org: { id: orgId, name: 'hooked' }, data: { hook: { id: hook.id, events: ['upload.failed'] } } });
    expect(body.url).toBe(`http://localhost:8080/orgs/${orgId}`);
    const [delivery] = await deliveries(hook);
    expect(delivery).toMatchObject({
      id: ping!.headers['x-scanyard-delivery'], event: 'ping', status: 'succeeded', attempts: 1, last_status_code: 200,
      last_response_body: 'ok', last_error: null, next_attempt_at: null,
    });
    expect(delivery!.last_duration_ms).toBeGreaterThanOrEqual(0);
    expect(await runner.deliverDue()).toBe(0);
  });

  it('sends a test ping on request, a new delivery of its own, owners only', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url, events: ['upload.completed'] });
    await runner.deliverDue();
    const res = await call(owner.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/ping`);
    expect(res.statusCode, res.body).toBe(202);
    const queued = res.json<Delivery>();
    expect(queued).toMatchObject({ event: 'ping', status: 'pending', attempts: 0 });
    expect((await call(member.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/ping`)).statusCode).toBe(403);
    expect((await call(owner.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks/no-such-hook/ping`)).statusCode).toBe(404);
    expect(await runner.deliverDue()).toBe(1);
    expect(r.received.map((x) => x.headers['x-scanyard-delivery'])).toHaveLength(2);
    expect(r.received[1]!.headers['x-scanyard-delivery']).toBe(queued.id);
    expect(r.received[1]!.signatureValid).toBe(true);
    const [latest, first] = await deliveries(hook);
    expect(latest).toMatchObject({ id: queued.id, event: 'ping', status: 'succeeded' });
    expect(first!.id).not.toBe(queued.id);
  });

  it('sends upload.completed and findings.new (at or above min_severity) from ingest, in order', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url, events: ['upload.completed', 'findings.new'], min_severity: 'high', repository_ids: [repoId] });
    const results = [
      { rule: 'SQLI', file: 'src/db.ts', level: 'error' as const },
      { rule: 'XSS', file: 'src/view.ts', level: 'error' as const },
      { rule: 'LOG', file: 'src/a.ts', level: 'warning' as const },
      { rule: 'LOG', file: 'src/b.ts', level: 'warning' as const },
      { rule: 'LOG', file: 'src/c.ts', level: 'warning' as const },
    ];
    const first = await upload(sarifLog(results), repoId, '?category=hooks');
    // Another repository's upload is not this hook's business.
    await upload(sarifLog(results), otherRepoId, '?category=hooks');
    // The same results again: nothing new, so only upload.completed.
    const second = await upload(sarifLog(results), repoId, '?category=hooks');
    // Only medium findings are new: below the hook's min_severity, so no findings.new.
    await upload(sarifLog([...results, { rule: 'LOG', file: 'src/d.ts', level: 'warning' as const }]), repoId, '?category=hooks');
    await runner.deliverDue();
    expect(r.received.every((x) => x.signatureValid)).toBe(true);
    expect(r.received.map((x) => x.headers['x-scanyard-event'])).toEqual(['ping', 'upload.completed', 'findings.new', 'upload.completed', 'upload.completed']);
    const completed = parse(r.received[1]!);
    expect(completed).toMatchObject({
      event: 'upload.completed', repository: { id: repoId, name: 'api' },
      data: { upload: { id: first, category: 'hooks' }, counts: { new: 5, fixed: 0, findings: 5 }, open_by_severity: { high: 2, medium: 3 } },
      url: `http://localhost:8080/repos/${repoId}`,
    });
    const found = parse(r.received[2]!);
    expect(found.findings).toMatchObject({ total: 2, by_severity: { critical: 0, high: 2, medium: 0, low: 0, info: 0 } });
    expect(found.findings.items.map((f: { rule_id: string; severity: string }) => [f.rule_id, f.severity]).sort()).toEqual([['SQLI', 'high'], ['XSS', 'high']]);
    expect(parse(r.received[3]!).data.upload.id).toBe(second);
    expect(parse(r.received[3]!).data.counts).toMatchObject({ new: 0, unchanged: 5 });
    expect((await deliveries(hook)).every((d) => d.status === 'succeeded')).toBe(true);
  });

  it('counts a reopened finding as new', async () => {
    const r = await receiver();
    await createHook({ url: r.url, events: ['findings.new'], repository_ids: [otherRepoId] });
    const a = { rule: 'A', file: 'a.ts', level: 'error' as const };
    const b = { rule: 'B', file: 'b.ts', level: 'note' as const };
    await upload(sarifLog([a, b]), otherRepoId, '?category=reopen');
    await upload(sarifLog([b]), otherRepoId, '?category=reopen');
    await upload(sarifLog([a, b]), otherRepoId, '?category=reopen');
    await runner.deliverDue();
    const events = r.received.slice(1).map(parse);
    expect(events.map((e) => e.findings.total)).toEqual([2, 1]);
    expect(events[1]!.data).toMatchObject({ new: 0, reopened: 1 });
    expect(events[1]!.findings.items.map((f: { rule_id: string }) => f.rule_id)).toEqual(['A']);
  });

  it('sends upload.failed with the error', async () => {
    const r = await receiver();
    await createHook({ url: r.url, events: ['upload.failed'] });
    const id = await upload('{"version": "2.1.0", "runs": [', repoId, '?format=sarif');
    await runner.deliverDue();
    const failed = r.received.map(parse).find((e) => e.event === 'upload.failed');
    expect(failed).toMatchObject({ repository: { id: repoId }, data: { upload: { id }, error: expect.any(String) } });
    expect(failed!.data.error.length).toBeGreaterThan(5);
  });

  it('sends gate.failed when an upload fails its policy, and nothing when it passes', async () => {
    const gated = (await orgClient(t).createRepo(owner.cookie, orgId, { name: 'gated' })).id;
    const policy = await call(owner.cookie, 'PUT', `/api/v1/repos/${gated}/policy`, { fail_on_new: 'high' });
    expect(policy.statusCode, policy.body).toBe(200);
    const r = await receiver();
    const chat = await receiver();
    await createHook({ url: r.url, events: ['gate.failed'], repository_ids: [gated] });
    await createHook({ url: chat.url, events: ['gate.failed'], format: 'slack', repository_ids: [gated] });
    await upload(sarifLog([{ rule: 'LOG', file: 'src/a.ts', level: 'warning' }]), gated);
    const failing = await upload(sarifLog([{ rule: 'LOG', file: 'src/a.ts', level: 'warning' }, { rule: 'SQLI', file: 'src/db.ts', line: 4, level: 'error' }]), gated, '?commit_sha=abcdef1');
    await runner.deliverDue();
    expect(r.received.every((x) => x.signatureValid)).toBe(true);
    expect(r.received.map((x) => x.headers['x-scanyard-event'])).toEqual(['ping', 'gate.failed']);
    expect(parse(r.received[1]!)).toMatchObject({
      event: 'gate.failed', repository: { id: gated, name: 'gated' },
      data: {
        upload: { id: failing, commit_sha: 'abcdef1' },
        gate: { status: 'fail', violations: [{ rule: 'fail_on_new', level: 'fail', count: 1, examples: ['SQLI at src/db.ts:4'] }] },
      },
    });
    const message = parse(chat.received.find((x) => x.headers['x-scanyard-event'] === 'gate.failed')!);
    expect(message.text).toContain('Gate failed in hooked/gated');
    expect(JSON.stringify(message.blocks)).toContain('This upload brought 1 new or reopened finding of severity high or worse (1 high).');
  });

  it('retries a failing receiver with the same delivery id, backing off, and holds the hook’s later events until it succeeds', async () => {
    const attemptsOf = new Map<string, number>();
    const r = await receiver((req) => {
      if (req.headers['x-scanyard-event'] !== 'upload.completed') return { status: 200 };
      const id = String(req.headers['x-scanyard-delivery']);
      const n = (attemptsOf.get(id) ?? 0) + 1;
      attemptsOf.set(id, n);
      // The first event's first two attempts fail.
      return attemptsOf.size === 1 && n <= 2 ? { status: 503, body: `down for maintenance ${'.'.repeat(3000)}` } : { status: 200 };
    });
    const hook = await createHook({ url: r.url, events: ['upload.completed'], repository_ids: [repoId] });
    const uploads = [
      await upload(sarifLog([{ rule: 'R1', file: 'one.ts' }]), repoId, '?category=retry'),
      await upload(sarifLog([{ rule: 'R2', file: 'two.ts' }]), repoId, '?category=retry'),
      await upload(sarifLog([{ rule: 'R3', file: 'three.ts' }]), repoId, '?category=retry'),
    ];

    await runner.deliverDue();
    // Ping, then the first event's failed attempt; the two later events wait behind it.
    expect(r.received.map((x) => x.headers['x-scanyard-event'])).toEqual(['ping', 'upload.completed']);
    let [head] = (await deliveries(hook)).filter((d) => d.event === 'upload.completed').reverse();
    expect(head).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 503 });
    expect(head!.last_response_body).toHaveLength(1024);
    expect(head!.last_response_body!.startsWith('down for maintenance')).toBe(true);
    const firstAttemptAt = Date.parse(head!.last_attempt_at!);
    const secondDue = Date.parse(head!.next_attempt_at!) - firstAttemptAt;
    expect(secondDue).toBeGreaterThanOrEqual(8_000);
    expect(secondDue).toBeLessThanOrEqual(12_000);
    // Not due yet: nothing is sent.
    expect(await runner.deliverDue()).toBe(0);

    ahead += firstAttemptAt + secondDue - clock();
    expect(await runner.deliverDue()).toBe(1);
    [head] = (await deliveries(hook)).filter((d) => d.event === 'upload.completed').reverse();
    expect(head).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 503 });
    const thirdDue = Date.parse(head!.next_attempt_at!) - firstAttemptAt;
    expect(thirdDue).toBeLessThanOrEqual(60_000);
    expect(thirdDue - secondDue).toBeGreaterThan(secondDue);

    ahead += firstAttemptAt + thirdDue - clock();
    expect(await runner.deliverDue()).toBe(3);
    const completed = r.received.filter((x) => x.headers['x-scanyard-event'] === 'upload.completed');
    expect(completed).toHaveLength(5);
    const ids = completed.map((x) => String(x.headers['x-scanyard-delivery']));
    // Same id on all three attempts of the first event, then the others, in the order of their uploads.
    expect(ids[0]).toBe(ids[1]);
    expect(ids[1]).toBe(ids[2]);
    expect(new Set(ids).size).toBe(3);
    expect(completed.map((x) => parse(x).data.counts.new)).toEqual([1, 1, 1, 1, 1]);
    const uploadIds = completed.map((x) => parse(x).data.upload.id as string);
    expect(uploadIds.slice(2)).toEqual(uploads);
    expect(completed.every((x) => x.signatureValid)).toBe(true);
    const list = (await deliveries(hook)).filter((d) => d.event === 'upload.completed');
    expect(list.map((d) => [d.status, d.attempts])).toEqual([['succeeded', 1], ['succeeded', 1], ['succeeded', 3]]);
  });

  it('gives up after 12 attempts spread over about a day, then lets the next event through', async () => {
    const r = await receiver((req) => (req.headers['x-scanyard-event'] === 'upload.completed' ? { status: 500 } : { status: 200 }));
    const hook = await createHook({ url: r.url, events: ['upload.completed'], repository_ids: [repoId] });
    await upload(sarifLog([{ rule: 'G', file: 'g.ts' }]), repoId, '?category=giveup');
    await runner.deliverDue();
    let [head] = (await deliveries(hook)).filter((d) => d.event === 'upload.completed');
    const started = Date.parse(head!.last_attempt_at!);
    for (let i = 0; i < 20 && head!.status !== 'failed'; i++) {
      ahead += Date.parse(head!.next_attempt_at!) - clock();
      await runner.deliverDue();
      [head] = (await deliveries(hook)).filter((d) => d.event === 'upload.completed');
    }
    expect(head).toMatchObject({ status: 'failed', attempts: 12, last_status_code: 500, next_attempt_at: null });
    const hours = (Date.parse(head!.last_attempt_at!) - started) / 3_600_000;
    expect(hours).toBeGreaterThan(16);
    expect(hours).toBeLessThan(32);
    expect(r.received.filter((x) => x.headers['x-scanyard-event'] === 'upload.completed')).toHaveLength(12);

    // Redelivered: the same id, a fresh round of attempts.
    const redeliver = await call(owner.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/deliveries/${head!.id}/redeliver`);
    expect(redeliver.statusCode, redeliver.body).toBe(202);
    expect(redeliver.json()).toMatchObject({ id: head!.id, status: 'pending', attempts: 0 });
    expect((await call(owner.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/deliveries/${head!.id}/redeliver`)).statusCode).toBe(409);
    expect((await call(owner.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/deliveries/no-such-delivery/redeliver`)).statusCode).toBe(404);
    expect((await call(member.cookie, 'POST', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/deliveries/${head!.id}/redeliver`)).statusCode).toBe(403);
    await runner.deliverDue();
    const last = r.received.at(-1)!;
    expect(last.headers['x-scanyard-delivery']).toBe(head!.id);
  });

  it('does not follow a redirect', async () => {
    const target = await receiver();
    const r = await receiver((req) => (req.headers['x-scanyard-event'] === 'ping' ? { status: 302, headers: { location: `${target.url}/stolen` } } : { status: 200 }));
    const hook = await createHook({ url: r.url, events: ['upload.completed'] });
    await runner.deliverDue();
    expect(r.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    const [ping] = await deliveries(hook);
    expect(ping).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 302 });
  });

  it('gives up on an attempt the receiver does not answer in time, and retries it', async () => {
    const r = await receiver(() => 'hang');
    const hook = await createHook({ url: r.url, events: ['upload.completed'] });
    // The 10 s timeout, shortened so the test need not wait for it.
    const impatient = t.app.services.webhooks.runner(t.app.log, { clock, timeoutMs: 200 });
    expect(await impatient.deliverDue()).toBe(1);
    const [ping] = await deliveries(hook);
    expect(ping).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_error: 'no answer within 200 ms' });
    expect(ping!.last_duration_ms).toBeGreaterThanOrEqual(190);
    expect(ping!.last_duration_ms).toBeLessThan(5000);
  });

  it("sends other orgs' deliveries while one org's receivers never answer", async () => {
    const silent = await receiver(() => 'hang');
    const healthy = await receiver();
    // Four hooks of this org whose receiver never answers, then one of another org: four pings queued first.
    const stuck: Hook[] = [];
    for (let i = 0; i < 4; i++) stuck.push(await createHook({ url: silent.url, events: ['upload.completed'] }));
    const created = await call(stranger.cookie, 'POST', `/api/v1/orgs/${foreignOrgId}/webhooks`, { url: healthy.url, secret: SECRET, events: ['upload.completed'] });
    expect(created.statusCode, created.body).toBe(201);
    const inFlight = () => t.db.kysely.selectFrom('webhook_deliveries').select('id')
      .where('webhook_id', 'in', stuck.map((hook) => hook.id)).where('status', '=', 'delivering').execute();
    // As many senders as stuck hooks: uncapped, the four would hold all of them for the whole timeout.
    const pool = t.app.services.webhooks.runner(t.app.log, { clock, timeoutMs: 3000, pollMs: 20 }).start(4);
    try {
      await vi.waitFor(() => expect(healthy.received).toHaveLength(1), { timeout: 2500, interval: 20 });
      // Received while the silent ones were still being waited for, two of them at most.
      const held = await inFlight();
      expect(held.length).toBeGreaterThan(0);
      expect(held.length).toBeLessThanOrEqual(2);
      for (const hook of stuck) expect((await deliveries(hook))[0]).toMatchObject({ last_error: null });
    } finally {
      await pool.stop();
    }
    expect(await inFlight()).toEqual([]);
  });

  it('keeps what can be stored of an odd answer', async () => {
    const r = await receiver(() => ({ status: 200, body: 'ok\u0000\u0000 done \u00e9' }));
    const hook = await createHook({ url: r.url, events: ['upload.completed'] });
    expect(await runner.deliverDue()).toBe(1);
    const [ping] = await deliveries(hook);
    expect(ping).toMatchObject({ status: 'succeeded', last_status_code: 200, last_response_body: 'ok done é' });
  });

  it('refuses at delivery a hook whose address is not public, after resolving its name, unless allowed', async () => {
    const r = await receiver();
    const strict = t.app.services.webhooks.runner(t.app.log, { clock, allowPrivate: false });
    const byName = await createHook({ url: `http://localhost:${r.port}/x`, events: ['upload.completed'] });
    const byAddress = await createHook({ url: `http://[::ffff:127.0.0.1]:${r.port}/y`, events: ['upload.completed'] });
    expect(await strict.deliverDue()).toBe(2);
    expect(r.received).toHaveLength(0);
    for (const hook of [byName, byAddress]) {
      const [ping] = await deliveries(hook);
      expect(ping).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
      expect(ping!.last_error).toMatch(/refused/);
    }
  });

  it('does not send to an inactive hook, and sends what waited once it is active again', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url, events: ['upload.completed'], active: false, repository_ids: [repoId] });
    await upload(sarifLog([{ rule: 'I', file: 'i.ts' }]), repoId, '?category=inactive');
    expect(await runner.deliverDue()).toBe(0);
    // Inactive hooks get no new events at all; the ping waits.
    expect((await deliveries(hook)).map((d) => d.event)).toEqual(['ping']);
    await call(owner.cookie, 'PUT', `/api/v1/orgs/${orgId}/webhooks/${hook.id}`, { active: true });
    expect(await runner.deliverDue()).toBe(1);
    expect(r.received.map((x) => x.headers['x-scanyard-event'])).toEqual(['ping']);
  });

  it('renders slack and teams messages a person can read, linking to Scanyard', async () => {
    const slack = await receiver();
    const teams = await receiver();
    await createHook({ url: slack.url, events: ['findings.new'], format: 'slack', repository_ids: [repoId] });
    await createHook({ url: teams.url, events: ['findings.new'], format: 'teams', repository_ids: [repoId] });
    await upload(sarifLog([
      { rule: 'CRIT', file: 'x.ts', level: 'error', securitySeverity: 9.8, message: 'a <script> & more' },
      { rule: 'MED', file: 'y.ts', level: 'warning' },
    ]), repoId, '?category=chat');
    await runner.deliverDue();
    const link = `http://localhost:8080/repos/${repoId}`;
    const s = parse(slack.received.find((x) => x.headers['x-scanyard-event'] === 'findings.new')!);
    expect(s.text).toContain('2 new findings in hooked/api');
    expect(s.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: '2 new findings in hooked/api' } });
    const text = JSON.stringify(s.blocks);
    expect(text).toContain('*critical*\\n1');
    expect(text).toContain('*medium*\\n1');
    expect(text).toContain('a &lt;script&gt; &amp; more');
    expect(text).toContain(`<${link}|View in Scanyard>`);
    const m = parse(teams.received.find((x) => x.headers['x-scanyard-event'] === 'findings.new')!);
    expect(m.type).toBe('message');
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = m.attachments[0].content;
    expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.4', actions: [{ type: 'Action.OpenUrl', title: 'View in Scanyard', url: link }] });
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', text: '2 new findings in hooked/api' });
    expect(card.body.find((b: { type: string }) => b.type === 'FactSet').facts).toContainEqual({ title: 'critical', value: '1' });
    expect(slack.received.every((x) => x.signatureValid) && teams.received.every((x) => x.signatureValid)).toBe(true);
  });

  it('shows markdown from the scanned code as text in Teams and Slack, and only our own link as a link', async () => {
    const hostile = '[Open Scanyard](https://evil.example/login) ![x](https://evil.example/x.png)';
    const slack = await receiver();
    const teams = await receiver();
    await createHook({ url: slack.url, events: ['findings.new'], format: 'slack', repository_ids: [otherRepoId] });
    await createHook({ url: teams.url, events: ['findings.new'], format: 'teams', repository_ids: [otherRepoId] });
    await upload(sarifLog([{ rule: '<!channel>', file: '**/x.ts', level: 'error', message: hostile }]), otherRepoId, '?category=markdown');
    await runner.deliverDue();
    const card = parse(teams.received.find((x) => x.headers['x-scanyard-event'] === 'findings.new')!).attachments[0].content;
    const lines = (card.body as { type: string; text?: string }[]).filter((b) => b.type === 'TextBlock').map((b) => b.text!);
    const line = lines.find((text) => text.includes('evil.example'))!;
    // Adaptive Cards read TextBlock text as CommonMark: rendered, it is the message as written, with no link or image.
    const html = (await commonMark())(line);
    expect(html).not.toMatch(/<(a|img|strong|em)\b/);
    expect(html).toContain(`[Open Scanyard](https://evil.example/login) ![x](https://evil.example/x.png)`);
    expect(html).toContain('&lt;!channel&gt;');
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'View in Scanyard', url: `http://localhost:8080/repos/${otherRepoId}` }]);

    const blocks = JSON.stringify(parse(slack.received.find((x) => x.headers['x-scanyard-event'] === 'findings.new')!).blocks);
    expect(blocks).toContain('&lt;!channel&gt;');
    expect(blocks).not.toContain('<!channel>');
    expect(blocks.match(/<http/g)).toHaveLength(1);
  });

  it('pages the deliveries list', async () => {
    const r = await receiver();
    const hook = await createHook({ url: r.url, events: ['upload.completed'], repository_ids: [repoId] });
    for (let i = 0; i < 3; i++) await upload(sarifLog([{ rule: `P${i}`, file: 'p.ts' }]), repoId, '?category=pages');
    const res = await call(owner.cookie, 'GET', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/deliveries?per_page=2&page=2`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-count']).toBe('4');
    expect(res.json<Delivery[]>().map((d) => d.event)).toEqual(['upload.completed', 'ping']);
    expect((await call(owner.cookie, 'GET', `/api/v1/orgs/${orgId}/webhooks/${hook.id}/deliveries?per_page=0`)).statusCode).toBe(400);
  });

  it('prunes deliveries finished more than 30 days ago, and only those', async () => {
    const hook = await createHook({ url: 'http://127.0.0.1:9/never', events: ['upload.completed'] });
    const [ping] = await deliveries(hook);
    const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
    const recent = new Date(Date.now() - 29 * 86_400_000).toISOString();
    const copy = (id: string, status: string, completedAt: string | null) => t.db.kysely.insertInto('webhook_deliveries').values({
      id, webhook_id: hook.id, event: 'upload.completed', payload: '{}', status, created_at: old, completed_at: completedAt, next_attempt_at: null,
    }).execute();
    await copy(`${ping!.id.slice(0, -4)}aaa1`, 'succeeded', old);
    await copy(`${ping!.id.slice(0, -4)}aaa2`, 'failed', old);
    await copy(`${ping!.id.slice(0, -4)}aaa3`, 'succeeded', recent);
    expect(await t.app.services.webhooks.pruneDeliveries()).toBe(2);
    expect((await deliveries(hook)).map((d) => d.status).sort()).toEqual(['pending', 'succeeded']);
  });

  it('signed every request any receiver got, with the headers a receiver relies on', async () => {
    const all = receivers.flatMap((r) => r.received);
    expect(all.length).toBeGreaterThan(30);
    for (const request of all) {
      expect(request.signatureValid).toBe(true);
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe(`Scanyard-Hookshot/${version}`);
      expect(request.headers['x-scanyard-delivery']).toMatch(/^[0-9a-f-]{36}$/);
      const body = parse(request);
      // json hooks say which delivery and event they are; chat formats carry neither in their body.
      if (body.event) expect(request.headers['x-scanyard-event']).toBe(body.event);
      if (body.delivery) expect(request.headers['x-scanyard-delivery']).toBe(body.delivery);
    }
  });

  // Last: everything above has been logged by now.
  it('never logs a secret', async () => {
    expect(logLines.length).toBeGreaterThan(10);
    expect(logLines.some((l) => l.includes('webhook delivered'))).toBe(true);
    const all = logLines.join('\n');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('another-secret-9876');
  });
});

describe.each(DB_KINDS)('webhook addresses on %s, without SERVICE_WEBHOOK_ALLOW_PRIVATE', (kind) => {
  let t: TestApp;
  let cookie: string;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    cookie = (await t.user('owner')).cookie;
    orgId = (await orgClient(t).createOrg(cookie, 'strict')).id;
  });
  afterAll(() => t.close());

  it.each([
    'http://127.0.0.1:9000/hook', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/hook', 'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/', 'http://10.1.2.3/', 'http://192.168.0.10/', 'http://100.100.100.200/', 'http://[fd00:ec2::254]/',
    'http://[fe80::1]/', 'http://0.0.0.0/', 'http://224.0.0.1/', 'http://localhost:8080/', 'http://app.localhost/',
  ])('refuses %s', async (url) => {
    const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/webhooks`, headers: { cookie }, payload: { url, secret: SECRET, events: ['upload.completed'] } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ errors: [{ path: '/url', message: expect.stringMatching(/SERVICE_WEBHOOK_ALLOW_PRIVATE/) }] });
  });

  it('accepts a public address', async () => {
    const res = await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/webhooks`, headers: { cookie }, payload: { url: 'https://93.184.215.14/hook', secret: SECRET, events: ['upload.completed'] } });
    expect(res.statusCode, res.body).toBe(201);
  });
});
