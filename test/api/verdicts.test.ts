import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { DB_KINDS } from '../support/db.js';
import { sarifLog, type SarifResultSpec } from '../support/sarif.js';
import { quietLog } from '../support/scans.js';
import { githubMarkdown, gitlabMarkdown } from '../../src/markup.js';
import { startChecksEmulator, type ChecksEmulator } from '../support/forge-checks-emulator.js';

const MARKER = '<!-- scanyard:verdict -->';
/** The secret the forge signs its webhooks with: sync credentials carry one (forge/ hooks); verdicts never use it. */
const WEBHOOK_SECRET = 'a-webhook-secret-for-tests';
const sha = (n: number) => n.toString(16).padStart(40, '0');
/**
 * Unified diffs as GitHub's "List pull requests files" returns them in `patch`: a.js adds lines 9 to
 * 11, b.js adds line 5 (c.js:20 is in no hunk).
 */
const FILES = [
  { filename: 'src/a.js', patch: '@@ -7,3 +7,6 @@ function f() {\n   const x = 1;\n   const y = 2;\n+  eval(input);\n+  run(input);\n+  exec(input);\n   return x;\n' },
  { filename: 'src/b.js', patch: '@@ -4,2 +4,3 @@\n ok();\n+query("select " + id);\n ok();\n' },
];
// Three findings: two on lines the pull request added (a.js:10, b.js:5), one elsewhere (c.js:20).
const THREE: SarifResultSpec[] = [
  { rule: 'js/code-injection', file: 'src/a.js', line: 10, level: 'error', securitySeverity: 9.1, message: 'User input reaches eval [here](https://evil.example)' },
  { rule: 'js/sql-injection', file: 'src/b.js', line: 5, level: 'error', securitySeverity: 8.0 },
  { rule: 'js/weak-hash', file: 'src/c.js', line: 20, level: 'warning', securitySeverity: 5.0 },
];

describe.each(DB_KINDS)('verdicts on GitHub pull requests (%s)', (kind) => {
  let t: TestApp;
  let gh: ChecksEmulator;
  let owner: { cookie: string };
  let key: string;
  let repoId: string;
  /** How far the runner's clock is ahead of real time: tests move it instead of waiting. */
  let ahead = 0;
  let runner: { deliverDue(): Promise<number> };

  beforeAll(async () => {
    gh = await startChecksEmulator('github');
    t = await createTestApp(kind, {
      SERVICE_FORGE_ALLOW_PRIVATE: 'true',
      SERVICE_PROVIDERS: JSON.stringify([{
        id: 'github', type: 'github', name: 'GitHub', client_id: 'Iv1.abc', client_secret: 'secret', url: gh.url, api_url: gh.apiUrl,
        app_id: gh.appId, private_key: gh.privateKeyPem, webhook_secret: WEBHOOK_SECRET,
      }]),
    });
    owner = await t.user('owner');
    const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id as string;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'payments', default_branch: 'main' } })).json().id as string;
    // What forge sync (issue 38) fills in: the repository's identity on GitHub.
    await t.db.kysely.updateTable('repos').set({ forge_id: '1296269', full_name: 'acme/payments' }).where('id', '=', repoId).execute();
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/policy`, headers: { cookie: owner.cookie }, payload: { fail_on_new: 'medium' } });
    key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
    runner = t.app.services.verdicts.runner(quietLog, { clock: () => Date.now() + ahead });
    // The base branch, analysed at its head with nothing open.
    await upload(sarifLog([]), { ref: 'refs/heads/main', commit_sha: sha(1) });
    await runner.deliverDue();
  });
  afterAll(async () => {
    await t.close();
    await gh.close();
  });

  async function upload(body: string, context: Record<string, string>): Promise<string> {
    const query = new URLSearchParams(context).toString();
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?${query}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
    return res.json().id as string;
  }
  const pr = (n: number, head: number) => ({ ref: `refs/pull/${n}/merge`, commit_sha: sha(1000 + head), head_sha: sha(head), base_ref: 'main', base_sha: sha(1) });
  const commentRequests = () => gh.requests.filter((r) => r.path.includes('/comments') && r.method !== 'GET');
  const deliveries = async () => (await t.request({ url: `/api/v1/repos/${repoId}/forge-deliveries`, headers: { cookie: owner.cookie } })).json() as Record<string, unknown>[];

  it('a pull request with 3 new findings (2 on changed lines) and a failing gate gets one failing check run with 2 annotations and one comment', async () => {
    gh.pullRequest('acme/payments', 7, sha(71), FILES);
    await upload(sarifLog(THREE), pr(7, 71));
    await runner.deliverDue();

    const runs = gh.checkRuns.filter((r) => r.head_sha === sha(71));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ name: 'Scanyard', status: 'completed', conclusion: 'failure' });
    expect(runs[0]!.output.annotations.map((a) => `${a.path as string}:${a.start_line as number}`).sort()).toEqual(['src/a.js:10', 'src/b.js:5']);
    expect(runs[0]!.output.summary).toContain('**New findings: 3**');
    expect(runs[0]!.output.summary).toContain('fail_on_new');
    // Text from the scanned code shows as itself, never as a link of ours.
    expect(runs[0]!.output.summary).not.toContain('[here](https://evil.example)');
    expect(runs[0]!.output.summary).toContain(`http://localhost:8080/repos/${repoId}?ref=pr%2F7`);
    // Created in_progress when the upload arrived, then completed: one POST, then a PATCH.
    const runRequests = gh.requests.filter((r) => r.path.endsWith('/check-runs') && r.method === 'POST' && (r.body as { head_sha: string }).head_sha === sha(71));
    expect(runRequests.map((r) => (r.body as { status: string }).status)).toEqual(['in_progress']);

    const onPr = gh.comments.filter((c) => c.on === 'acme/payments#7');
    expect(onPr).toHaveLength(1);
    expect(onPr[0]!.body.startsWith(`${MARKER}\n### Scanyard: Gate failed: 3 new findings`)).toBe(true);
    // The push to main before it: a check run, no comment.
    expect(gh.checkRuns.filter((r) => r.head_sha === sha(1))).toMatchObject([{ status: 'completed', conclusion: 'success' }]);
    expect(gh.comments.filter((c) => !c.on.endsWith('#7'))).toEqual([]);
    // Every request but the App's own token requests went with an installation token, never the JWT.
    expect(gh.requests.filter((r) => r.path.includes('/check-runs')).every((r) => r.authorization?.startsWith('Bearer ghs_'))).toBe(true);
  });

  it('a new head with one finding fixed edits the same comment and completes a check run on the new head', async () => {
    gh.pullRequest('acme/payments', 7, sha(72), FILES);
    const before = commentRequests().length;
    await upload(sarifLog(THREE.slice(0, 2)), pr(7, 72));
    await runner.deliverDue();

    const runs = gh.checkRuns.filter((r) => r.head_sha === sha(72));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(runs[0]!.output.summary).toContain('**Fixed: 1**');
    const onPr = gh.comments.filter((c) => c.on === 'acme/payments#7');
    expect(onPr).toHaveLength(1);
    expect(onPr[0]!.body).toContain('Gate failed: 2 new findings');
    const made = commentRequests().slice(before);
    expect(made.map((r) => r.method)).toEqual(['PATCH']);
    expect(made[0]!.path).toBe(`/repos/acme/payments/issues/comments/${onPr[0]!.id}`);
  });

  it('a new head with the same findings changes no comment, and still gets its check run', async () => {
    gh.pullRequest('acme/payments', 7, sha(73), FILES);
    const before = commentRequests().length;
    await upload(sarifLog(THREE.slice(0, 2)), pr(7, 73));
    await runner.deliverDue();

    expect(gh.checkRuns.filter((r) => r.head_sha === sha(73))).toMatchObject([{ status: 'completed', conclusion: 'failure' }]);
    expect(commentRequests().slice(before)).toEqual([]);
    expect(gh.comments.filter((c) => c.on === 'acme/payments#7')).toHaveLength(1);
  });

  it('502, then 429 with Retry-After: 2: the check run and the comment arrive once, after the wait', async () => {
    gh.pullRequest('acme/payments', 8, sha(81), FILES);
    gh.fail({ status: 502 }, { status: 429, headers: { 'retry-after': '2' }, body: { message: 'API rate limit exceeded' } });
    await upload(sarifLog(THREE), pr(8, 81));

    expect(await runner.deliverDue()).toBe(1);
    expect(gh.checkRuns.filter((r) => r.head_sha === sha(81))).toHaveLength(0);
    // A 5xx is tried again within 30 s.
    ahead += 30_000;
    expect(await runner.deliverDue()).toBe(1);
    expect(gh.checkRuns.filter((r) => r.head_sha === sha(81))).toHaveLength(0);
    // Not before the 2 seconds the forge asked for; and nothing of this pull request overtakes it.
    ahead += 1_000;
    expect(await runner.deliverDue()).toBe(0);
    ahead += 1_500;
    expect(await runner.deliverDue()).toBe(3);

    expect(gh.checkRuns.filter((r) => r.head_sha === sha(81))).toMatchObject([{ status: 'completed', conclusion: 'failure' }]);
    expect(gh.comments.filter((c) => c.on === 'acme/payments#8')).toHaveLength(1);
    const log = await deliveries();
    const started = log.find((d) => d.event === 'check.started' && (d.upload_id as string) && d.status === 'succeeded' && (d.attempts as unknown[]).length === 3);
    expect(started?.attempts).toMatchObject([{ status_code: 502 }, { status_code: 429 }, { status_code: 200 }]);
    expect(started?.kind).toBe('check_run');
    expect(JSON.stringify(log)).not.toMatch(/ghs_|BEGIN RSA/);
  });

  it('a comment whose answer was lost is found again by its marker, not posted twice', async () => {
    gh.pullRequest('acme/payments', 9, sha(91), FILES);
    gh.fail({ status: 502, afterApplying: true, when: { method: 'POST', path: /\/issues\/9\/comments$/ } });
    await upload(sarifLog(THREE), pr(9, 91));
    // The check run goes through; the comment is made, but its answer is lost: the retry finds it by its marker.
    expect(await runner.deliverDue()).toBe(3);
    expect(gh.comments.filter((c) => c.on === 'acme/payments#9')).toHaveLength(1);
    ahead += 30_000;
    expect(await runner.deliverDue()).toBe(1);
    const comments = gh.comments.filter((c) => c.on === 'acme/payments#9');
    expect(comments).toHaveLength(1);
    const id = comments[0]!.id;
    // Redelivering the comment edits it in place.
    const log = await deliveries();
    const comment = log.find((d) => d.kind === 'comment' && d.status === 'succeeded' && d.external_id === String(id));
    expect(comment).toBeDefined();
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/forge-deliveries/${comment!.id as string}/redeliver`, headers: { cookie: owner.cookie } });
    expect(res.statusCode, res.body).toBe(202);
    await runner.deliverDue();
    expect(gh.comments.filter((c) => c.on === 'acme/payments#9')).toHaveLength(1);
    expect(gh.requests.at(-1)).toMatchObject({ method: 'PATCH', path: `/repos/acme/payments/issues/comments/${id}` });
  });

  it('a base analysed at another commit than the merge base: neutral, saying so, fail_on_new not applied', async () => {
    gh.pullRequest('acme/payments', 10, sha(101), FILES);
    await upload(sarifLog(THREE), { ...pr(10, 101), base_sha: sha(2) });
    await runner.deliverDue();
    const [run] = gh.checkRuns.filter((r) => r.head_sha === sha(101));
    expect(run).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    // The line is ours, but names a branch CI gave: escaped like any text from outside.
    expect(run!.output.summary).toContain(githubMarkdown('main was last analysed at 0000000 ('));
    expect(run!.output.summary).toContain(githubMarkdown("not at this branch's base 0000000: findings may not be new."));
    expect(run!.output.summary).toContain('**Gate: pass** (neutral: fail_on_new not applied)');
    expect(run!.output.summary).not.toContain('`fail_on_new`');
  });

  it('120 findings on changed lines: 120 annotations, sent at most 50 a request, on one check run', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => i + 1);
    // A new file of 120 lines: every line added.
    gh.pullRequest('acme/payments', 14, sha(141), [{ filename: 'src/many.js', patch: `@@ -0,0 +1,120 @@\n${lines.map((n) => `+line ${n}`).join('\n')}` }]);
    await upload(sarifLog(lines.map((n) => ({ rule: `js/rule-${n}`, file: 'src/many.js', line: n, level: 'warning' as const }))), pr(14, 141));
    await runner.deliverDue();
    const [run] = gh.checkRuns.filter((r) => r.head_sha === sha(141));
    expect(run!.output.annotations).toHaveLength(120);
    const ofRun = (r: (typeof gh.requests)[number]) => r.path.endsWith(`/check-runs/${run!.id}`) || (r.method === 'POST' && (r.body as { head_sha?: string } | null)?.head_sha === sha(141));
    const sent = gh.requests.filter((r) => ofRun(r) && ((r.body as { output?: { annotations?: unknown[] } } | null)?.output?.annotations?.length ?? 0) > 0);
    expect(sent.map((r) => (r.body as { output: { annotations: unknown[] } }).output.annotations.length)).toEqual([50, 50, 20]);
  });

  it('several files per push: each check run tells the pull request\'s verdict, and the comment does not flip', async () => {
    gh.pullRequest('acme/payments', 12, sha(121), FILES);
    await upload(sarifLog(THREE), pr(12, 121));
    await runner.deliverDue();
    const before = commentRequests().length;
    // A second scanner of the same push finds nothing: the pull request still brings three findings.
    await upload(sarifLog([], 'OtherScanner'), pr(12, 121));
    await runner.deliverDue();
    const runs = gh.checkRuns.filter((r) => r.head_sha === sha(121));
    expect(runs.map((r) => r.conclusion)).toEqual(['failure', 'failure']);
    expect(runs[1]!.output.summary).toContain('**New findings: 3**');
    expect(commentRequests().slice(before)).toEqual([]);
  });

  it('an earlier upload finishing after a later one leaves the later verdict\'s comment as it is', async () => {
    gh.pullRequest('acme/payments', 13, sha(132), FILES);
    // Comments after every upload: only the order can keep the earlier one from writing.
    await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}`, headers: { cookie: owner.cookie }, payload: { pr_feedback: { checks: true, comment: 'always' } } });
    const send = async (body: string, context: Record<string, string>) => {
      const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?${new URLSearchParams(context).toString()}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: body });
      return res.json().id as string;
    };
    const earlier = await send(sarifLog(THREE), pr(13, 131));
    const later = await send(sarifLog(THREE.slice(0, 1)), pr(13, 132));
    // The earlier one is held up (its worker is slow): the later one is processed first.
    await t.db.kysely.updateTable('uploads').set({ status: 'processing', lease_until: '9999-01-01T00:00:00.000Z' }).where('id', '=', earlier).execute();
    await t.drain();
    await runner.deliverDue();
    expect(gh.comments.filter((c) => c.on === 'acme/payments#13').map((c) => c.body)).toEqual([expect.stringContaining('Gate failed: 1 new finding')]);
    const before = commentRequests().length;
    await t.db.kysely.updateTable('uploads').set({ status: 'pending', lease_until: null }).where('id', '=', earlier).execute();
    await t.drain();
    await runner.deliverDue();
    expect(commentRequests().slice(before)).toEqual([]);
    expect(gh.comments.filter((c) => c.on === 'acme/payments#13').map((c) => c.body)).toEqual([expect.stringContaining('Gate failed: 1 new finding')]);
    // Each head still gets its own check run.
    expect(gh.checkRuns.filter((r) => r.head_sha === sha(131) || r.head_sha === sha(132)).map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(later).not.toBe(earlier);
    await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}`, headers: { cookie: owner.cookie }, payload: { pr_feedback: null } });
  });

  it('pr_feedback: the organization turns comments off, a repository turns checks off and comments always, null inherits again', async () => {
    const orgId = (await t.request({ url: `/api/v1/repos/${repoId}`, headers: { cookie: owner.cookie } })).json().org_id as string;
    let res = await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { cookie: owner.cookie }, payload: { pr_feedback: { comment: 'off' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().pr_feedback).toEqual({ checks: true, comment: 'off' });
    gh.pullRequest('acme/payments', 11, sha(111), FILES);
    await upload(sarifLog(THREE), pr(11, 111));
    await runner.deliverDue();
    expect(gh.checkRuns.filter((r) => r.head_sha === sha(111))).toHaveLength(1);
    expect(gh.comments.filter((c) => c.on === 'acme/payments#11')).toHaveLength(0);

    res = await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}`, headers: { cookie: owner.cookie }, payload: { pr_feedback: { checks: false, comment: 'always' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().pr_feedback).toEqual({ checks: false, comment: 'always' });
    gh.pullRequest('acme/payments', 11, sha(112), FILES);
    await upload(sarifLog(THREE), pr(11, 112));
    await runner.deliverDue();
    expect(gh.checkRuns.filter((r) => r.head_sha === sha(112))).toHaveLength(0);
    expect(gh.comments.filter((c) => c.on === 'acme/payments#11')).toHaveLength(1);

    res = await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}`, headers: { cookie: owner.cookie }, payload: { pr_feedback: null } });
    expect(res.json().pr_feedback).toBeNull();
    expect((await t.request({ url: `/api/v1/repos/${repoId}`, headers: { cookie: owner.cookie } })).json().pr_feedback).toBeNull();
    const bad = await t.request({ method: 'PUT', url: `/api/v1/repos/${repoId}`, headers: { cookie: owner.cookie }, payload: { pr_feedback: { checks: 'yes', comment: 'sometimes' } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}`, headers: { cookie: owner.cookie }, payload: { pr_feedback: { comment: 'on_change' } } });
  });

  it("an SBOM on both the base and the pull request: the check run and the comment count the dependency diff's changes", async () => {
    // CycloneDX 1.6 JSON BOMs (https://cyclonedx.org/docs/1.6/json/): the base has lodash 4.17.20, left-pad and
    // minimist; the pull request bumps lodash, drops left-pad, adds ms, and reports minimist's CVE-2021-44906.
    const component = (name: string, version: string) => ({ type: 'library', name, version, 'bom-ref': `${name}@${version}`, purl: `pkg:npm/${name}@${version}`, licenses: [{ license: { id: 'MIT' } }] });
    const bom = (components: ReturnType<typeof component>[], vulnerabilities: unknown[] = []) => JSON.stringify({
      bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
      metadata: { tools: { components: [{ type: 'application', name: 'cyclonedx-npm', version: '1.19.3' }] }, component: { type: 'application', name: 'payments', 'bom-ref': 'payments' } },
      components, dependencies: [{ ref: 'payments', dependsOn: components.map((c) => c['bom-ref']) }], vulnerabilities,
    });
    await upload(bom([component('lodash', '4.17.20'), component('left-pad', '1.3.0'), component('minimist', '1.2.5')]), { ref: 'refs/heads/main', commit_sha: sha(1), category: 'sbom' });
    gh.pullRequest('acme/payments', 15, sha(151), FILES);
    await upload(bom([component('lodash', '4.17.21'), component('minimist', '1.2.5'), component('ms', '2.1.3')], [{
      id: 'CVE-2021-44906', source: { name: 'NVD', url: 'https://nvd.nist.gov/vuln/detail/CVE-2021-44906' },
      ratings: [{ severity: 'critical', method: 'CVSSv31', score: 9.8 }], affects: [{ ref: 'minimist@1.2.5' }],
    }]), { ...pr(15, 151), category: 'sbom' });
    await runner.deliverDue();

    const line = '**Dependencies:** 1 added, 1 removed, 1 changed, 0 with licences changed; vulnerabilities: 1 introduced, 0 fixed';
    const [run] = gh.checkRuns.filter((r) => r.head_sha === sha(151));
    expect(run!.name).toBe('Scanyard (sbom)');
    expect(run!.output.summary).toContain(line);
    expect(gh.comments.filter((c) => c.on === 'acme/payments#15').map((c) => c.body)).toEqual([expect.stringContaining(line)]);
    // The same counts as the diff endpoint gives for the two refs.
    const diff = await t.request({ url: `/api/v1/repos/${repoId}/components/diff?base=main&head=pr/15`, headers: { cookie: owner.cookie } });
    expect(diff.json().counts).toEqual({ added: 1, removed: 1, changed: 1, licenses_changed: 0, vulnerabilities_introduced: 1, vulnerabilities_fixed: 0 });
    // A pull request whose base has no SBOM in its category says nothing of dependencies.
    expect(gh.checkRuns.filter((r) => r.head_sha === sha(71)).every((r) => !(r.output.summary ?? '').includes('**Dependencies:**'))).toBe(true);
  });
});

describe.each(DB_KINDS)('a GitHub App key the forge does not know (%s)', (kind) => {
  it('gets no installation token: the delivery records the 401 and retries, naming no secret', async () => {
    const gh = await startChecksEmulator('github');
    const other = await startChecksEmulator('github');
    const t = await createTestApp(kind, {
      SERVICE_FORGE_ALLOW_PRIVATE: 'true',
      SERVICE_PROVIDERS: JSON.stringify([{ id: 'github', type: 'github', name: 'GitHub', client_id: 'Iv1.abc', client_secret: 'secret', url: gh.url, api_url: gh.apiUrl, app_id: gh.appId, private_key: other.privateKeyPem, webhook_secret: WEBHOOK_SECRET }]),
    });
    try {
      const owner = await t.user('owner');
      const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id as string;
      const repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'payments' } })).json().id as string;
      await t.db.kysely.updateTable('repos').set({ forge_id: '1', full_name: 'acme/payments' }).where('id', '=', repoId).execute();
      const key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
      const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?commit_sha=${sha(9)}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: sarifLog([]) });
      expect(res.statusCode).toBe(202);
      await t.app.services.verdicts.runner(quietLog).deliverDue();
      expect(gh.requests.map((r) => `${r.status} ${r.path}`)).toEqual(['401 /repos/acme/payments/installation']);
      expect(gh.checkRuns).toEqual([]);
      const [delivery] = (await t.request({ url: `/api/v1/repos/${repoId}/forge-deliveries`, headers: { cookie: owner.cookie } })).json() as Record<string, unknown>[];
      expect(delivery).toMatchObject({ status: 'pending', kind: 'check_run', attempts: [{ status_code: 401 }], last_status_code: 401 });
      expect(JSON.stringify(delivery)).not.toMatch(/BEGIN RSA|eyJ/);
    } finally {
      await t.close();
      await gh.close();
      await other.close();
    }
  });
});

describe.each(DB_KINDS)('a forge API on a loopback address without SERVICE_FORGE_ALLOW_PRIVATE (%s)', (kind) => {
  it('is not reached: the SSRF guard refuses before any request, and the delivery says why', async () => {
    const gl = await startChecksEmulator('gitlab');
    const t = await createTestApp(kind, {
      SERVICE_PROVIDERS: JSON.stringify([{ id: 'gitlab', type: 'gitlab', name: 'GitLab', client_id: 'app', client_secret: 'secret', url: gl.url, api_url: gl.apiUrl, token: gl.token, webhook_secret: WEBHOOK_SECRET }]),
    });
    try {
      const owner = await t.user('owner');
      const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id as string;
      const repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'payments' } })).json().id as string;
      await t.db.kysely.updateTable('repos').set({ forge_id: '7', full_name: 'acme/payments' }).where('id', '=', repoId).execute();
      const key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
      const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?commit_sha=${sha(9)}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: sarifLog([]) });
      expect(res.statusCode).toBe(202);
      await t.app.services.verdicts.runner(quietLog).deliverDue();
      expect(gl.requests).toEqual([]);
      const [delivery] = (await t.request({ url: `/api/v1/repos/${repoId}/forge-deliveries`, headers: { cookie: owner.cookie } })).json() as Record<string, unknown>[];
      expect(delivery).toMatchObject({ status: 'pending', last_status_code: null });
      expect(String(delivery!.last_error)).toMatch(/could not be reached .*refused/);
    } finally {
      await t.close();
      await gl.close();
    }
  });
});

describe.each(DB_KINDS)('verdicts on GitLab merge requests (%s)', (kind) => {
  let t: TestApp;
  let gl: ChecksEmulator;
  let key: string;
  let repoId: string;
  let runner: { deliverDue(): Promise<number> };

  beforeAll(async () => {
    gl = await startChecksEmulator('gitlab');
    t = await createTestApp(kind, {
      SERVICE_FORGE_ALLOW_PRIVATE: 'true',
      SERVICE_PROVIDERS: JSON.stringify([{ id: 'gitlab', type: 'gitlab', name: 'GitLab', client_id: 'app', client_secret: 'secret', url: gl.url, api_url: gl.apiUrl, token: gl.token, webhook_secret: WEBHOOK_SECRET }]),
    });
    const owner = await t.user('owner');
    const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id as string;
    repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'payments' } })).json().id as string;
    await t.db.kysely.updateTable('repos').set({ forge_id: '42', full_name: 'acme/payments' }).where('id', '=', repoId).execute();
    await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/policy`, headers: { cookie: owner.cookie }, payload: { fail_on_new: 'medium' } });
    key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
    runner = t.app.services.verdicts.runner(quietLog);
  });
  afterAll(async () => {
    await t.close();
    await gl.close();
  });

  async function upload(body: string, context: Record<string, string>): Promise<void> {
    const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?${new URLSearchParams(context).toString()}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    await t.drain();
  }

  it('a merge request gets a running then failed commit status named Scanyard with its target_url, and one note edited in place', async () => {
    await upload(sarifLog([]), { ref: 'main', commit_sha: sha(1), category: 'sast' });
    // The head is read from the merge request when CI does not name it.
    gl.pullRequest('42', 3, sha(31), FILES);
    await upload(sarifLog(THREE), { ref: 'refs/merge-requests/3/head', commit_sha: sha(31), base_ref: 'main', category: 'sast' });
    await runner.deliverDue();
    const states = gl.statuses.filter((s) => s.sha === sha(31)).map((s) => s.body);
    expect(states.map((s) => s.state)).toEqual(['running', 'failed']);
    expect(states[1]).toMatchObject({ name: 'Scanyard (sast)', target_url: `http://localhost:8080/repos/${repoId}?ref=pr%2F3` });
    const notes = gl.comments.filter((c) => c.on === '42!3');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body.startsWith(`${MARKER}\n### Scanyard (sast): Gate failed: 3 new findings`)).toBe(true);

    await upload(sarifLog(THREE.slice(1)), { ref: 'refs/merge-requests/3/head', commit_sha: sha(32), base_ref: 'main', category: 'sast' });
    await runner.deliverDue();
    expect(gl.comments.filter((c) => c.on === '42!3')).toHaveLength(1);
    expect(gl.comments.find((c) => c.on === '42!3')!.body).toContain('Gate failed: 2 new findings');
    expect(gl.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
    expect(gl.statuses.filter((s) => s.sha === sha(32)).map((s) => s.body.state)).toEqual(['running', 'failed']);
    // The push to the default branch got its status, and no note.
    expect(gl.statuses.filter((s) => s.sha === sha(1)).map((s) => s.body.state)).toEqual(['running', 'success']);
  });

  it('a merge request whose base has no analysis in its category concludes neutral (success on GitLab), saying so', async () => {
    gl.pullRequest('42', 4, sha(41), FILES);
    await upload(sarifLog(THREE), { ref: 'refs/merge-requests/4/head', commit_sha: sha(41), base_ref: 'main', category: 'deps' });
    await runner.deliverDue();
    expect(gl.statuses.filter((s) => s.sha === sha(41)).map((s) => s.body.state)).toEqual(['running', 'success']);
    expect(gl.comments.find((c) => c.on === '42!4')!.body).toContain(gitlabMarkdown('main has no analysis in category deps: findings may not be new.'));
  });
});

describe.each(DB_KINDS)('verdicts on Gitea and Bitbucket pull requests (%s)', (kind) => {
  for (const forge of ['gitea', 'bitbucket'] as const) {
    it(`${forge}: a commit status${forge === 'bitbucket' ? ' with a Code Insights report and its annotations' : ''}, and one comment edited in place`, async () => {
      const emulator = await startChecksEmulator(forge);
      const t = await createTestApp(kind, {
        SERVICE_FORGE_ALLOW_PRIVATE: 'true',
        SERVICE_PROVIDERS: JSON.stringify([{ id: forge, type: forge, name: forge, client_id: 'app', client_secret: 'secret', url: emulator.url, api_url: emulator.apiUrl, token: emulator.token, webhook_secret: WEBHOOK_SECRET }]),
      });
      try {
        const owner = await t.user('owner');
        const orgId = (await t.request({ method: 'POST', url: '/api/v1/orgs', headers: { cookie: owner.cookie }, payload: { name: 'acme' } })).json().id as string;
        const repoId = (await t.request({ method: 'POST', url: `/api/v1/orgs/${orgId}/repos`, headers: { cookie: owner.cookie }, payload: { name: 'payments' } })).json().id as string;
        await t.db.kysely.updateTable('repos').set({ forge_id: '7', full_name: 'acme/payments' }).where('id', '=', repoId).execute();
        await t.request({ method: 'PUT', url: `/api/v1/orgs/${orgId}/policy`, headers: { cookie: owner.cookie }, payload: { fail_on_new: 'medium' } });
        const key = await t.apiKey(owner.cookie, { scopes: ['upload'] });
        const runner = t.app.services.verdicts.runner(quietLog);
        const upload = async (body: string, context: Record<string, string>) => {
          const res = await t.request({ method: 'POST', url: `/api/v1/repos/${repoId}/upload?${new URLSearchParams(context).toString()}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' }, payload: body });
          expect(res.statusCode, res.body).toBe(202);
          await t.drain();
          await runner.deliverDue();
        };
        await upload(sarifLog([]), { ref: 'main', commit_sha: sha(1) });
        emulator.pullRequest('acme/payments', 5, sha(51), FILES);
        await upload(sarifLog(THREE), { ref: 'pr/5', commit_sha: sha(5001), base_ref: 'main' });
        const states = emulator.statuses.filter((s) => s.sha === sha(51)).map((s) => s.body.state);
        if (forge === 'gitea') {
          expect(states).toEqual(['pending', 'failure']);
          expect(emulator.statuses.find((s) => s.sha === sha(51))!.body.context).toBe('Scanyard');
        } else {
          expect(states).toEqual(['INPROGRESS', 'FAILED']);
          const report = emulator.reports.get(`acme/payments@${sha(51)}/scanyard`);
          expect(report?.report).toMatchObject({ report_type: 'SECURITY', result: 'FAILED', title: 'Scanyard' });
          expect(report?.annotations.map((a) => `${a.path as string}:${a.line as number}`).sort()).toEqual(['src/a.js:10', 'src/b.js:5', 'src/c.js:20']);
        }
        expect(emulator.comments.filter((c) => c.on === 'acme/payments#5')).toHaveLength(1);
        emulator.pullRequest('acme/payments', 5, sha(52), FILES);
        await upload(sarifLog(THREE.slice(1)), { ref: 'pr/5', commit_sha: sha(5002), base_ref: 'main' });
        const comments = emulator.comments.filter((c) => c.on === 'acme/payments#5');
        expect(comments).toHaveLength(1);
        expect(comments[0]!.body).toContain('Gate failed: 2 new findings');
        expect(emulator.statuses.filter((s) => s.sha === sha(52))).toHaveLength(2);
      } finally {
        await t.close();
        await emulator.close();
      }
    });
  }
});
