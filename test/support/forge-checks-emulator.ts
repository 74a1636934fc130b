/**
 * A local forge that receives verdicts as the real ones document their REST APIs, and refuses what
 * they would refuse:
 * - GitHub (docs.github.com/en/rest/checks/runs, /rest/pulls/pulls, /rest/issues/comments,
 *   /rest/apps/apps): a GitHub App's JWT (RS256, iss = app id, exp at most 10 minutes after iat)
 *   for GET /repos/{owner}/{repo}/installation and POST /app/installations/{id}/access_tokens; the
 *   installation token for everything else. Check runs validated as "Create a check run" / "Update a
 *   check run" say (status and conclusion values, conclusion required once completed, output.title
 *   and output.summary required with the summary at most 65,535 characters, at most 50 annotations
 *   per request, each with path, start_line, end_line, annotation_level notice|warning|failure and
 *   message); updates append annotations. Errors are 422 {"message": "Validation Failed", ...}.
 * - GitLab (docs.gitlab.com/ee/api/commits.html#set-the-pipeline-status-of-a-commit, /api/notes.html):
 *   commit statuses with state pending|running|success|failed|canceled|skipped (else 400 with its
 *   error body), merge request notes listed a page at a time (X-Next-Page), created and edited.
 * - Gitea/Forgejo (their swagger: /repos/{owner}/{repo}/statuses/{sha}, issue comments).
 * - Bitbucket Cloud (developer.atlassian.com: commit build statuses, Code Insights reports and
 *   annotations, at most 100 annotations a request; pull request comments with content.raw).
 * Every request is recorded; a test can make the next requests fail (502, 429 with Retry-After, a
 * GitHub secondary rate limit 403), or make one be applied and then answered 502 (the answer lost).
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';

export type EmulatedForge = 'github' | 'gitlab' | 'gitea' | 'bitbucket';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  authorization: string | undefined;
  status: number;
}

export interface Fault {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Apply the request, then answer with this fault (the forge acted; its answer was lost). */
  afterApplying?: boolean;
  /** Only for a request like this (any request when left out). */
  when?: { method: string; path: RegExp };
}

export interface CheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  external_id: string | null;
  details_url: string | null;
  output: { title: string | null; summary: string | null; annotations: Record<string, unknown>[] };
}

export interface Comment {
  id: number;
  /** owner/repo#n (GitHub, Gitea) or project!iid (GitLab). */
  on: string;
  body: string;
}

export interface CommitStatus {
  project: string;
  sha: string;
  body: Record<string, unknown>;
}

const STATUSES = ['queued', 'in_progress', 'completed', 'waiting', 'requested', 'pending'];
const CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'stale', 'timed_out'];
const LEVELS = ['notice', 'warning', 'failure'];
const GITLAB_STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'];
const GITEA_STATES = ['pending', 'success', 'error', 'failure', 'warning'];
const BITBUCKET_STATES = ['SUCCESSFUL', 'FAILED', 'INPROGRESS', 'STOPPED'];

class Refusal extends Error {
  constructor(readonly status: number, readonly body: unknown) {
    super(`refused ${status}`);
  }
}

const githubInvalid = (message: string) => new Refusal(422, {
  message: 'Validation Failed', errors: [{ resource: 'CheckRun', code: 'invalid', message }],
  documentation_url: 'https://docs.github.com/rest/checks/runs',
});

export async function startChecksEmulator(forge: EmulatedForge) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const appId = '424242';
  const token = `${forge === 'github' ? 'ghs_' : 'glpat-'}${randomBytes(12).toString('hex')}`;
  const requests: Recorded[] = [];
  const faults: Fault[] = [];
  const pulls = new Map<string, { head: string; files: { filename: string; patch: string }[] }>();
  const checkRuns: CheckRun[] = [];
  const comments: Comment[] = [];
  const statuses: CommitStatus[] = [];
  const reports = new Map<string, { report: Record<string, unknown>; annotations: Record<string, unknown>[] }>();
  let nextId = 1000;
  const installationTokens = new Map<string, number>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
        res.writeHead(500).end(String(err));
      });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator');
    let body: unknown = null;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        return send(res, 400, { message: 'Problems parsing JSON' }, {}, req, url, body);
      }
    }
    const tokenRequest = url.pathname.endsWith('/installation') || url.pathname.includes('/access_tokens');
    const at = tokenRequest ? -1 : faults.findIndex((f) => !f.when || (f.when.method === req.method && f.when.path.test(url.pathname)));
    const fault = at < 0 ? undefined : faults.splice(at, 1)[0];
    if (fault && !fault.afterApplying) return send(res, fault.status, fault.body ?? { message: 'Server Error' }, fault.headers ?? {}, req, url, body);
    try {
      const answer = await route(req.method ?? 'GET', url, body, req.headers.authorization);
      if (fault) return send(res, fault.status, fault.body ?? { message: 'Server Error' }, fault.headers ?? {}, req, url, body);
      return send(res, answer.status ?? 200, answer.body, answer.headers ?? {}, req, url, body);
    } catch (error) {
      if (error instanceof Refusal) return send(res, error.status, error.body, {}, req, url, body);
      throw error;
    }
  }

  function send(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string>, req: IncomingMessage, url: URL, body: unknown) {
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body, authorization: req.headers.authorization, status });
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
  }

  type Answer = { status?: number; body: unknown; headers?: Record<string, string> };

  async function route(method: string, url: URL, body: unknown, authorization: string | undefined): Promise<Answer> {
    const path = url.pathname;
    if (forge === 'github') return github(method, path, url, body, authorization);
    if (forge === 'gitlab') return gitlab(method, path, url, body, authorization);
    if (forge === 'gitea') return gitea(method, path, url, body, authorization);
    return bitbucket(method, path, body, authorization);
  }

  function requireToken(authorization: string | undefined): void {
    if (authorization !== `Bearer ${token}` && !(forge === 'github' && installationTokens.has(authorization?.slice('Bearer '.length) ?? ''))) {
      throw new Refusal(401, forge === 'github' ? { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' } : { message: '401 Unauthorized' });
    }
  }

  async function requireAppJwt(authorization: string | undefined): Promise<void> {
    const jwt = authorization?.startsWith('Bearer ') ? authorization.slice(7) : '';
    try {
      const { payload } = await jwtVerify(jwt, publicKey as KeyObject, { algorithms: ['RS256'], issuer: appId });
      if (payload.exp === undefined || payload.iat === undefined || payload.exp - payload.iat > 600 + 60) throw new Error('too long');
    } catch {
      throw new Refusal(401, { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' });
    }
  }

  async function github(method: string, path: string, url: URL, body: unknown, authorization: string | undefined): Promise<Answer> {
    let m = /^\/repos\/([^/]+\/[^/]+)\/installation$/.exec(path);
    if (m && method === 'GET') {
      await requireAppJwt(authorization);
      return { body: { id: 77, account: { login: m[1]!.split('/')[0] }, app_id: Number(appId) } };
    }
    m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (m && method === 'POST') {
      await requireAppJwt(authorization);
      const minted = `ghs_${randomBytes(12).toString('hex')}`;
      installationTokens.set(minted, Number(m[1]));
      return { status: 201, body: { token: minted, expires_at: new Date(Date.now() + 3_600_000).toISOString(), permissions: { checks: 'write', pull_requests: 'write', contents: 'read' } } };
    }
    requireToken(authorization);
    m = /^\/repos\/([^/]+\/[^/]+)\/(.*)$/.exec(path);
    if (!m) throw new Refusal(404, { message: 'Not Found' });
    const [repo, rest] = [decodeURIComponent(m[1]!), m[2]!];
    let r: RegExpExecArray | null;
    if ((r = /^pulls\/(\d+)$/.exec(rest)) && method === 'GET') {
      const pull = pulls.get(`${repo}#${r[1]}`);
      if (!pull) throw new Refusal(404, { message: 'Not Found' });
      return { body: { number: Number(r[1]), head: { sha: pull.head }, state: 'open' } };
    }
    if ((r = /^pulls\/(\d+)\/files$/.exec(rest)) && method === 'GET') {
      const pull = pulls.get(`${repo}#${r[1]}`);
      if (!pull) throw new Refusal(404, { message: 'Not Found' });
      return { body: page(pull.files.map((f) => ({ ...f, status: 'modified' })), url) };
    }
    if (rest === 'check-runs' && method === 'POST') {
      const run = validateCheckRun(body, true);
      const created: CheckRun = { id: ++nextId, ...run, output: { title: run.output?.title ?? null, summary: run.output?.summary ?? null, annotations: run.output?.annotations ?? [] } };
      checkRuns.push(created);
      return { status: 201, body: created };
    }
    if ((r = /^check-runs\/(\d+)$/.exec(rest)) && method === 'PATCH') {
      const run = checkRuns.find((c) => c.id === Number(r![1]));
      if (!run) throw new Refusal(404, { message: 'Not Found' });
      const update = validateCheckRun(body, false);
      if (update.name) run.name = update.name;
      if (update.status) run.status = update.status;
      if (update.conclusion) {
        run.conclusion = update.conclusion;
        run.status = 'completed';
      }
      if (update.details_url) run.details_url = update.details_url;
      if (update.output) {
        run.output.title = update.output.title;
        run.output.summary = update.output.summary;
        run.output.annotations.push(...(update.output.annotations ?? []));
      }
      return { body: run };
    }
    if ((r = /^commits\/([^/]+)\/check-runs$/.exec(rest)) && method === 'GET') {
      const name = url.searchParams.get('check_name');
      const runs = checkRuns.filter((c) => c.head_sha === r![1] && (!name || c.name === name));
      return { body: { total_count: runs.length, check_runs: runs } };
    }
    return issueComments(method, repo, rest, url, body);
  }

  function issueComments(method: string, repo: string, rest: string, url: URL, body: unknown): Answer {
    let r: RegExpExecArray | null;
    if ((r = /^issues\/(\d+)\/comments$/.exec(rest))) {
      const on = `${repo}#${r[1]}`;
      if (method === 'GET') return { body: page(comments.filter((c) => c.on === on), url) };
      if (method === 'POST') {
        const text = commentBody(body);
        const comment = { id: ++nextId, on, body: text };
        comments.push(comment);
        return { status: 201, body: comment };
      }
    }
    if ((r = /^issues\/comments\/(\d+)$/.exec(rest)) && method === 'PATCH') {
      const comment = comments.find((c) => c.id === Number(r![1]) && c.on.startsWith(`${repo}#`));
      if (!comment) throw new Refusal(404, { message: 'Not Found' });
      comment.body = commentBody(body);
      return { body: comment };
    }
    throw new Refusal(404, { message: 'Not Found' });
  }

  function commentBody(body: unknown): string {
    const text = (body as { body?: unknown } | null)?.body;
    if (typeof text !== 'string' || text.length === 0) throw new Refusal(422, { message: 'Validation Failed', errors: [{ resource: 'IssueComment', code: 'missing_field', field: 'body' }] });
    if (text.length > 65_536) throw new Refusal(422, { message: 'Validation Failed', errors: [{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }] });
    return text;
  }

  /** GitHub's per_page (at most 100) and page. */
  function page<T>(items: T[], url: URL): T[] {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? url.searchParams.get('limit') ?? 30));
    const n = Number(url.searchParams.get('page') ?? 1);
    return items.slice((n - 1) * perPage, n * perPage);
  }

  function validateCheckRun(body: unknown, creating: boolean) {
    const b = (body ?? {}) as Record<string, unknown>;
    if (creating && (typeof b.name !== 'string' || b.name === '')) throw githubInvalid('name is required');
    if (creating && (typeof b.head_sha !== 'string' || !/^[0-9a-f]{40}$/.test(b.head_sha))) throw githubInvalid('head_sha must be a commit SHA');
    if (b.status !== undefined && !STATUSES.includes(b.status as string)) throw githubInvalid(`status ${String(b.status)} is not included in the list`);
    if (b.conclusion !== undefined && !CONCLUSIONS.includes(b.conclusion as string)) throw githubInvalid(`conclusion ${String(b.conclusion)} is not included in the list`);
    if ((b.status === 'completed' || b.completed_at !== undefined) && b.conclusion === undefined) throw githubInvalid('conclusion is required when status is completed');
    let output: { title: string; summary: string; annotations?: Record<string, unknown>[] } | undefined;
    if (b.output !== undefined) {
      const o = b.output as Record<string, unknown>;
      if (typeof o.title !== 'string' || typeof o.summary !== 'string') throw githubInvalid('output.title and output.summary are required');
      if (o.summary.length > 65_535) throw githubInvalid('output.summary is too long (maximum is 65535 characters)');
      const annotations = (o.annotations ?? []) as Record<string, unknown>[];
      if (!Array.isArray(annotations) || annotations.length > 50) throw githubInvalid('output.annotations may hold at most 50 annotations per request');
      for (const a of annotations) {
        if (typeof a.path !== 'string' || !Number.isInteger(a.start_line) || !Number.isInteger(a.end_line) || typeof a.message !== 'string'
          || !LEVELS.includes(a.annotation_level as string) || (a.end_line as number) < (a.start_line as number)) {
          throw githubInvalid('each annotation needs path, start_line, end_line >= start_line, annotation_level (notice, warning, failure) and message');
        }
        if ((a.message as string).length > 65_535 || (typeof a.title === 'string' && a.title.length > 255)) throw githubInvalid('annotation message or title too long');
      }
      output = { title: o.title, summary: o.summary, annotations };
    }
    return {
      name: b.name as string, head_sha: b.head_sha as string, status: (b.status as string | undefined) ?? (b.conclusion ? 'completed' : 'queued'),
      conclusion: (b.conclusion as string | undefined) ?? null, external_id: (b.external_id as string | undefined) ?? null,
      details_url: (b.details_url as string | undefined) ?? null, output,
    };
  }

  function gitlab(method: string, path: string, url: URL, body: unknown, authorization: string | undefined): Answer {
    requireToken(authorization);
    let r: RegExpExecArray | null;
    if ((r = /^\/api\/v4\/projects\/([^/]+)\/statuses\/([0-9a-f]{40})$/.exec(path)) && method === 'POST') {
      const b = (body ?? {}) as Record<string, unknown>;
      if (!GITLAB_STATES.includes(b.state as string)) throw new Refusal(400, { error: 'state does not have a valid value' });
      statuses.push({ project: decodeURIComponent(r[1]!), sha: r[2]!, body: b });
      return { status: 201, body: { id: ++nextId, sha: r[2], status: b.state, name: b.name, target_url: b.target_url } };
    }
    if ((r = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)$/.exec(path)) && method === 'GET') {
      const pull = pulls.get(`${decodeURIComponent(r[1]!)}#${r[2]}`);
      if (!pull) throw new Refusal(404, { message: '404 Not found' });
      return { body: { iid: Number(r[2]), sha: pull.head } };
    }
    if ((r = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(path))) {
      const on = `${decodeURIComponent(r[1]!)}!${r[2]}`;
      if (method === 'GET' && !r[3]) {
        const all = comments.filter((c) => c.on === on);
        const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 20));
        const n = Number(url.searchParams.get('page') ?? 1);
        const more = n * perPage < all.length;
        return { body: all.slice((n - 1) * perPage, n * perPage), headers: { 'x-page': String(n), 'x-next-page': more ? String(n + 1) : '', 'x-per-page': String(perPage) } };
      }
      const text = (body as { body?: unknown } | null)?.body;
      if (method !== 'GET' && (typeof text !== 'string' || text.length === 0)) throw new Refusal(400, { error: 'body is missing' });
      if (method === 'POST' && !r[3]) {
        const note = { id: ++nextId, on, body: text as string };
        comments.push(note);
        return { status: 201, body: note };
      }
      if (method === 'PUT' && r[3]) {
        const note = comments.find((c) => c.id === Number(r![3]) && c.on === on);
        if (!note) throw new Refusal(404, { message: '404 Not found' });
        note.body = text as string;
        return { body: note };
      }
    }
    throw new Refusal(404, { message: '404 Not Found' });
  }

  function gitea(method: string, path: string, url: URL, body: unknown, authorization: string | undefined): Answer {
    requireToken(authorization);
    const m = /^\/api\/v1\/repos\/([^/]+\/[^/]+)\/(.*)$/.exec(path);
    if (!m) throw new Refusal(404, { message: 'Not Found' });
    const [repo, rest] = [m[1]!, m[2]!];
    let r: RegExpExecArray | null;
    if ((r = /^statuses\/([0-9a-f]{40})$/.exec(rest)) && method === 'POST') {
      const b = (body ?? {}) as Record<string, unknown>;
      if (!GITEA_STATES.includes(b.state as string)) throw new Refusal(422, { message: '[State]: invalid state' });
      statuses.push({ project: repo, sha: r[1]!, body: b });
      return { status: 201, body: { id: ++nextId, ...b } };
    }
    if ((r = /^pulls\/(\d+)$/.exec(rest)) && method === 'GET') {
      const pull = pulls.get(`${repo}#${r[1]}`);
      if (!pull) throw new Refusal(404, { message: 'Not Found' });
      return { body: { number: Number(r[1]), head: { sha: pull.head } } };
    }
    return issueComments(method, repo, rest, url, body);
  }

  function bitbucket(method: string, path: string, body: unknown, authorization: string | undefined): Answer {
    requireToken(authorization);
    const m = /^\/2\.0\/repositories\/([^/]+\/[^/]+)\/(.*)$/.exec(path);
    if (!m) throw new Refusal(404, { type: 'error', error: { message: 'Not Found' } });
    const [repo, rest] = [m[1]!, m[2]!];
    let r: RegExpExecArray | null;
    if ((r = /^pullrequests\/(\d+)$/.exec(rest)) && method === 'GET') {
      const pull = pulls.get(`${repo}#${r[1]}`);
      if (!pull) throw new Refusal(404, { type: 'error', error: { message: 'Not Found' } });
      return { body: { id: Number(r[1]), source: { commit: { hash: pull.head } } } };
    }
    if ((r = /^pullrequests\/(\d+)\/comments(?:\/(\d+))?$/.exec(rest))) {
      const on = `${repo}#${r[1]}`;
      if (method === 'GET' && !r[2]) return { body: { pagelen: 100, page: 1, values: comments.filter((c) => c.on === on).map((c) => ({ id: c.id, content: { raw: c.body } })) } };
      const raw = (body as { content?: { raw?: unknown } } | null)?.content?.raw;
      if (typeof raw !== 'string' || raw === '') throw new Refusal(400, { type: 'error', error: { message: 'content.raw is required' } });
      if (method === 'POST' && !r[2]) {
        const comment = { id: ++nextId, on, body: raw };
        comments.push(comment);
        return { status: 201, body: { id: comment.id, content: { raw } } };
      }
      if (method === 'PUT' && r[2]) {
        const comment = comments.find((c) => c.id === Number(r![2]) && c.on === on);
        if (!comment) throw new Refusal(404, { type: 'error', error: { message: 'Not Found' } });
        comment.body = raw;
        return { body: { id: comment.id, content: { raw } } };
      }
    }
    if ((r = /^commit\/([0-9a-f]{40})\/statuses\/build$/.exec(rest)) && method === 'POST') {
      const b = (body ?? {}) as Record<string, unknown>;
      if (!BITBUCKET_STATES.includes(b.state as string) || typeof b.key !== 'string' || typeof b.url !== 'string') {
        throw new Refusal(400, { type: 'error', error: { message: 'key, state (SUCCESSFUL, FAILED, INPROGRESS, STOPPED) and url are required' } });
      }
      statuses.push({ project: repo, sha: r[1]!, body: b });
      return { status: 201, body: b };
    }
    if ((r = /^commit\/([0-9a-f]{40})\/reports\/([^/]+)$/.exec(rest)) && method === 'PUT') {
      const b = (body ?? {}) as Record<string, unknown>;
      if (typeof b.title !== 'string' || typeof b.details !== 'string' || typeof b.report_type !== 'string') {
        throw new Refusal(400, { type: 'error', error: { message: 'title, details and report_type are required' } });
      }
      reports.set(`${repo}@${r[1]}/${r[2]}`, { report: b, annotations: [] });
      return { body: b };
    }
    if ((r = /^commit\/([0-9a-f]{40})\/reports\/([^/]+)\/annotations$/.exec(rest)) && method === 'POST') {
      const report = reports.get(`${repo}@${r[1]}/${r[2]}`);
      if (!report) throw new Refusal(404, { type: 'error', error: { message: 'Report not found' } });
      if (!Array.isArray(body) || body.length > 100) throw new Refusal(400, { type: 'error', error: { message: 'at most 100 annotations per request' } });
      report.annotations.push(...(body as Record<string, unknown>[]));
      return { body };
    }
    throw new Refusal(404, { type: 'error', error: { message: 'Not Found' } });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const apiUrl = forge === 'gitlab' ? `${url}/api/v4` : forge === 'gitea' ? `${url}/api/v1` : url;

  return {
    url, apiUrl, token, appId,
    /** The app's private key as GitHub hands it out (PKCS#1 PEM). */
    privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    requests, checkRuns, comments, statuses, reports,
    /** A pull request with its head and the unified diff of each file it changes. */
    pullRequest(repo: string, number: number, head: string, files: { filename: string; patch: string }[]) {
      pulls.set(`${repo}#${number}`, { head, files });
    },
    /** The next requests (token requests aside) answer these, in order. */
    fail(...next: Fault[]) {
      faults.push(...next);
    },
    clear() {
      requests.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type ChecksEmulator = Awaited<ReturnType<typeof startChecksEmulator>>;
