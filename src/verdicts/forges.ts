import type { ForgeAccess } from './access.js';
import { GITHUB_JSON } from '../github-app/installation-tokens.js';
import type { Method } from '../net/get.js';
import { forgeRequest, ForgeRefused, type ForgeAnswer } from './http.js';
import { MAX_ANNOTATED } from './outbox.js';
import { commentOf, commentPrefix, summaryOf, titleOf } from './render.js';
import { checkName, type DeliveryKind, type Verdict, type VerdictFinding } from './types.js';

/** Annotations GitHub takes per request to create or update a check run. */
const ANNOTATIONS_PER_REQUEST = 50;
/** Bitbucket takes at most 100 annotations per request. */
const BITBUCKET_ANNOTATIONS_PER_REQUEST = 100;
/** GitHub lists at most 3,000 files of a pull request, 100 a page. */
const MAX_FILE_PAGES = 30;
/** Comments read looking for ours, at 100 a page. */
const MAX_COMMENT_PAGES = 20;
/** GitHub's limit on a check run's summary and an annotation's message (65,535 characters). */
const GITHUB_TEXT_LIMIT = 65_535;

/** What a delivery knows and keeps while it sends: a retry resumes where the last attempt stopped. */
export interface SendContext {
  access: ForgeAccess;
  token: string;
  baseUrl: string;
  externalId: string | null;
  state: { head?: string; sent?: number };
  /** The check run created when the upload arrived, if that went out. */
  startedCheck(): Promise<string | null>;
  save(externalId: string | null, state: SendContext['state']): Promise<void>;
  threadComment(): Promise<string | null>;
  saveThreadComment(id: string): Promise<void>;
}

/** The forge's word for a delivery: a check run is a commit status outside GitHub (with a Code Insights report on Bitbucket); a comment a note on GitLab. */
export function kindOn(type: ForgeAccess['type'], kind: DeliveryKind): DeliveryKind {
  if (kind === 'check_run') return type === 'github' ? 'check_run' : 'status';
  if (kind === 'comment') return type === 'gitlab' ? 'note' : 'comment';
  return kind;
}

export async function sendVerdict(kind: DeliveryKind, verdict: Verdict, ctx: SendContext): Promise<void> {
  const check = kind === 'check_run' || kind === 'status';
  switch (ctx.access.type) {
    case 'github':
      return check ? githubCheckRun(verdict, ctx) : githubComment(verdict, ctx);
    case 'gitlab':
      return check ? gitlabStatus(verdict, ctx) : gitlabNote(verdict, ctx);
    case 'gitea':
    case 'forgejo':
      return check ? giteaStatus(verdict, ctx) : giteaComment(verdict, ctx);
    case 'bitbucket':
      return check ? bitbucketStatus(verdict, ctx) : bitbucketComment(verdict, ctx);
  }
}

function repoPath(verdict: Verdict): string {
  return verdict.repository.full_name.split('/').map(encodeURIComponent).join('/');
}

const github = (ctx: SendContext, method: Method, path: string, body: unknown, doing: string) =>
  forgeRequest({ method, url: `${ctx.access.apiUrl}${path}`, token: ctx.token, body, doing, headers: { accept: GITHUB_JSON }, allowPrivate: ctx.access.allowPrivate });

/** The commit the verdict goes on: the head CI named, else the pull request's head as the forge says, else the pushed commit. */
async function headOf(verdict: Verdict, ctx: SendContext, read: () => Promise<string | undefined>): Promise<string> {
  if (ctx.state.head) return ctx.state.head;
  const head = verdict.upload.head_sha ?? (verdict.pull_request !== null ? await read() : undefined) ?? verdict.upload.commit_sha;
  if (!head) throw new Error('no commit to put the verdict on: the upload named none and the forge gave no head');
  ctx.state.head = head;
  return head;
}

async function githubCheckRun(verdict: Verdict, ctx: SendContext): Promise<void> {
  const repo = `/repos/${repoPath(verdict)}`;
  const head = await headOf(verdict, ctx, async () => {
    const pull = await github(ctx, 'GET', `${repo}/pulls/${verdict.pull_request}`, undefined, 'reading the pull request');
    return (pull.json as { head?: { sha?: string } }).head?.sha;
  });
  const name = checkName(verdict.upload.category);
  const detailsUrl = `${ctx.baseUrl}${verdict.path}`;
  // A retry whose first POST was answered but lost finds the check run by its external_id (the upload).
  let id = ctx.externalId ?? await ctx.startedCheck() ?? await existingCheckRun(ctx, repo, head, name, verdict.upload.id);
  if (verdict.state === 'in_progress') {
    if (id) return ctx.save(id, ctx.state);
    const created = await github(ctx, 'POST', `${repo}/check-runs`, {
      name, head_sha: head, status: 'in_progress', details_url: detailsUrl, external_id: verdict.upload.id,
      output: { title: titleOf(verdict), summary: summaryOf(verdict, ctx.baseUrl, 'github') },
    }, 'creating the check run');
    return ctx.save(String((created.json as { id: number }).id), ctx.state);
  }
  const annotations = verdict.pull_request === null ? [] : annotationsOf(verdict.new_findings.items, await githubChangedLines(ctx, repo, verdict.pull_request));
  const left = Math.max(0, verdict.new_findings.total - verdict.new_findings.items.length);
  const output = { title: titleOf(verdict), summary: summaryOf(verdict, ctx.baseUrl, 'github', left).slice(0, GITHUB_TEXT_LIMIT) };
  const batches = chunk(annotations, ANNOTATIONS_PER_REQUEST);
  let sent = ctx.state.sent ?? 0;
  if (sent === 0) {
    const body = {
      name, status: 'completed', conclusion: verdict.conclusion, completed_at: new Date().toISOString(), details_url: detailsUrl,
      external_id: verdict.upload.id, output: { ...output, annotations: batches[0] ?? [] },
    };
    const answer = id ? await github(ctx, 'PATCH', `${repo}/check-runs/${id}`, body, 'completing the check run')
      : await github(ctx, 'POST', `${repo}/check-runs`, { ...body, head_sha: head }, 'creating the check run');
    id = String((answer.json as { id: number }).id);
    sent = 1;
    await ctx.save(id, { ...ctx.state, sent });
  }
  // Each further request adds 50 annotations to the same check run.
  for (; sent < batches.length; sent++) {
    await github(ctx, 'PATCH', `${repo}/check-runs/${id}`, { output: { ...output, annotations: batches[sent] } }, 'adding annotations to the check run');
    await ctx.save(id, { ...ctx.state, sent: sent + 1 });
  }
}

async function existingCheckRun(ctx: SendContext, repo: string, head: string, name: string, uploadId: string): Promise<string | null> {
  const answer = await github(ctx, 'GET', `${repo}/commits/${encodeURIComponent(head)}/check-runs?check_name=${encodeURIComponent(name)}&per_page=100`, undefined, 'looking for the check run');
  const runs = (answer.json as { check_runs?: { id: number; external_id?: string | null }[] }).check_runs ?? [];
  const found = runs.find((run) => run.external_id === uploadId);
  return found ? String(found.id) : null;
}

interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  title: string;
  message: string;
}

/** New findings on lines the pull request added, as annotations, up to GitHub's 1,000. */
function annotationsOf(findings: readonly VerdictFinding[], changed: Map<string, Set<number>>): Annotation[] {
  const out: Annotation[] = [];
  for (const f of findings) {
    if (!f.path || f.start_line === null) continue;
    const lines = changed.get(f.path);
    const end = Math.max(f.start_line, f.end_line ?? f.start_line);
    if (!lines || !touches(lines, f.start_line, end)) continue;
    out.push({
      path: f.path, start_line: f.start_line, end_line: end,
      annotation_level: f.severity === 'critical' || f.severity === 'high' ? 'failure' : f.severity === 'medium' ? 'warning' : 'notice',
      title: `${f.severity}: ${f.rule_id}`.slice(0, 255),
      message: f.message.slice(0, GITHUB_TEXT_LIMIT) || f.rule_id,
    });
    if (out.length === MAX_ANNOTATED) break;
  }
  return out;
}

function touches(lines: Set<number>, start: number, end: number): boolean {
  for (let line = start; line <= end && line < start + 10_000; line++) if (lines.has(line)) return true;
  return false;
}

async function githubChangedLines(ctx: SendContext, repo: string, pull: number): Promise<Map<string, Set<number>>> {
  const changed = new Map<string, Set<number>>();
  for (let page = 1; page <= MAX_FILE_PAGES; page++) {
    const answer = await github(ctx, 'GET', `${repo}/pulls/${pull}/files?per_page=100&page=${page}`, undefined, "reading the pull request's files");
    const files = answer.json as { filename: string; patch?: string }[];
    for (const file of files) changed.set(file.filename, addedLines(file.patch ?? ''));
    if (files.length < 100) break;
  }
  return changed;
}

/** The new file's line numbers that a unified diff adds (what a pull request changed). */
export function addedLines(patch: string): Set<number> {
  const added = new Set<number>();
  let line = 0;
  for (const text of patch.split('\n')) {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      line = Number(hunk[1]);
    } else if (text.startsWith('+')) {
      added.add(line++);
    } else if (text.startsWith(' ') || text === '') {
      line++;
    }
    // '-' lines and "\ No newline at end of file" do not move the new file's count.
  }
  return added;
}

async function githubComment(verdict: Verdict, ctx: SendContext): Promise<void> {
  const repo = `/repos/${repoPath(verdict)}`;
  await editOrCreateComment(verdict, ctx, 'github', {
    list: async (page) => (await github(ctx, 'GET', `${repo}/issues/${verdict.pull_request}/comments?per_page=100&page=${page}`, undefined, 'reading the comments')).json as { id: number; body?: string }[],
    edit: (id, body) => github(ctx, 'PATCH', `${repo}/issues/comments/${id}`, { body }, 'editing the comment'),
    create: (body) => github(ctx, 'POST', `${repo}/issues/${verdict.pull_request}/comments`, { body }, 'commenting'),
  });
}

interface CommentApi {
  list(page: number): Promise<{ id: number; body?: string }[]>;
  edit(id: string, body: string): Promise<ForgeAnswer>;
  create(body: string): Promise<ForgeAnswer>;
}

/** One comment per pull request: the one we made (remembered, else found by its marker) edited, else a new one. */
async function editOrCreateComment(verdict: Verdict, ctx: SendContext, markup: 'github' | 'gitlab', api: CommentApi): Promise<void> {
  const body = commentOf(verdict, ctx.baseUrl, markup);
  let id = ctx.externalId ?? await ctx.threadComment();
  if (!id) {
    const prefix = commentPrefix(verdict, markup);
    for (let page = 1; page <= MAX_COMMENT_PAGES && !id; page++) {
      const comments = await api.list(page);
      id = comments.find((c) => c.body?.startsWith(prefix))?.id.toString() ?? null;
      if (comments.length < 100) break;
    }
  }
  if (id) {
    try {
      await api.edit(id, body);
      await ctx.save(id, ctx.state);
      await ctx.saveThreadComment(id);
      return;
    } catch (error) {
      // Deleted on the forge: a new one replaces it.
      if (!(error instanceof ForgeRefused && error.answer.status === 404)) throw error;
    }
  }
  const created = await api.create(body);
  const newId = String((created.json as { id: number }).id);
  await ctx.save(newId, ctx.state);
  await ctx.saveThreadComment(newId);
}

// GitLab: a commit status and one merge request note (REST API v4).

function gitlabProject(verdict: Verdict): string {
  return encodeURIComponent(verdict.repository.forge_id ?? verdict.repository.full_name);
}

const gitlab = (ctx: SendContext, method: Method, path: string, body: unknown, doing: string) =>
  forgeRequest({ method, url: `${ctx.access.apiUrl}${path}`, token: ctx.token, body, doing, allowPrivate: ctx.access.allowPrivate });

const GITLAB_STATE = { in_progress: 'running', success: 'success', failure: 'failed', neutral: 'success' } as const;

async function gitlabStatus(verdict: Verdict, ctx: SendContext): Promise<void> {
  const project = `/projects/${gitlabProject(verdict)}`;
  const sha = await headOf(verdict, ctx, async () =>
    ((await gitlab(ctx, 'GET', `${project}/merge_requests/${verdict.pull_request}`, undefined, 'reading the merge request')).json as { sha?: string }).sha);
  const state = verdict.state === 'in_progress' ? GITLAB_STATE.in_progress : GITLAB_STATE[verdict.conclusion ?? 'neutral'];
  await gitlab(ctx, 'POST', `${project}/statuses/${encodeURIComponent(sha)}`, {
    state, name: checkName(verdict.upload.category), target_url: `${ctx.baseUrl}${verdict.path}`, description: titleOf(verdict).slice(0, 255),
  }, 'setting the commit status');
  await ctx.save(sha, ctx.state);
}

async function gitlabNote(verdict: Verdict, ctx: SendContext): Promise<void> {
  const mr = `/projects/${gitlabProject(verdict)}/merge_requests/${verdict.pull_request}`;
  await editOrCreateComment(verdict, ctx, 'gitlab', {
    list: async (page) => (await gitlab(ctx, 'GET', `${mr}/notes?per_page=100&page=${page}&sort=asc`, undefined, 'reading the notes')).json as { id: number; body?: string }[],
    edit: (id, body) => gitlab(ctx, 'PUT', `${mr}/notes/${id}`, { body }, 'editing the note'),
    create: (body) => gitlab(ctx, 'POST', `${mr}/notes`, { body }, 'adding the note'),
  });
}

// Gitea and Forgejo: a commit status and one pull request comment (their API v1).

const GITEA_STATE = { in_progress: 'pending', success: 'success', failure: 'failure', neutral: 'warning' } as const;

async function giteaStatus(verdict: Verdict, ctx: SendContext): Promise<void> {
  const repo = `/repos/${repoPath(verdict)}`;
  const sha = await headOf(verdict, ctx, async () =>
    ((await gitlab(ctx, 'GET', `${repo}/pulls/${verdict.pull_request}`, undefined, 'reading the pull request')).json as { head?: { sha?: string } }).head?.sha);
  await gitlab(ctx, 'POST', `${repo}/statuses/${encodeURIComponent(sha)}`, {
    state: verdict.state === 'in_progress' ? GITEA_STATE.in_progress : GITEA_STATE[verdict.conclusion ?? 'neutral'],
    context: checkName(verdict.upload.category), target_url: `${ctx.baseUrl}${verdict.path}`, description: titleOf(verdict).slice(0, 255),
  }, 'setting the commit status');
  await ctx.save(sha, ctx.state);
}

async function giteaComment(verdict: Verdict, ctx: SendContext): Promise<void> {
  const repo = `/repos/${repoPath(verdict)}`;
  await editOrCreateComment(verdict, ctx, 'github', {
    list: async (page) => (await gitlab(ctx, 'GET', `${repo}/issues/${verdict.pull_request}/comments?page=${page}&limit=100`, undefined, 'reading the comments')).json as { id: number; body?: string }[],
    edit: (id, body) => gitlab(ctx, 'PATCH', `${repo}/issues/comments/${id}`, { body }, 'editing the comment'),
    create: (body) => gitlab(ctx, 'POST', `${repo}/issues/${verdict.pull_request}/comments`, { body }, 'commenting'),
  });
}

// Bitbucket Cloud: a build status, and a Code Insights report with annotations (API 2.0).

const BITBUCKET_STATE = { in_progress: 'INPROGRESS', success: 'SUCCESSFUL', failure: 'FAILED', neutral: 'SUCCESSFUL' } as const;

async function bitbucketHead(verdict: Verdict, ctx: SendContext, repo: string): Promise<string> {
  return headOf(verdict, ctx, async () =>
    ((await gitlab(ctx, 'GET', `${repo}/pullrequests/${verdict.pull_request}`, undefined, 'reading the pull request')).json as { source?: { commit?: { hash?: string } } }).source?.commit?.hash);
}

function reportKey(verdict: Verdict): string {
  return `scanyard${verdict.upload.category ? `-${verdict.upload.category.replace(/[^A-Za-z0-9_-]/g, '-')}` : ''}`.slice(0, 40);
}

/** The build status, and once judged the commit's Code Insights report with its annotations. */
async function bitbucketStatus(verdict: Verdict, ctx: SendContext): Promise<void> {
  const repo = `/2.0/repositories/${repoPath(verdict)}`;
  const sha = await bitbucketHead(verdict, ctx, repo);
  if (!ctx.state.sent) {
    await gitlab(ctx, 'POST', `${repo}/commit/${encodeURIComponent(sha)}/statuses/build`, {
      key: reportKey(verdict), state: verdict.state === 'in_progress' ? BITBUCKET_STATE.in_progress : BITBUCKET_STATE[verdict.conclusion ?? 'neutral'],
      name: checkName(verdict.upload.category), url: `${ctx.baseUrl}${verdict.path}`, description: titleOf(verdict).slice(0, 255),
    }, 'setting the build status');
    await ctx.save(sha, ctx.state);
  }
  if (verdict.state === 'completed') await bitbucketReport(verdict, ctx, repo, sha);
}

async function bitbucketComment(verdict: Verdict, ctx: SendContext): Promise<void> {
  const pull = `/2.0/repositories/${repoPath(verdict)}/pullrequests/${verdict.pull_request}`;
  await editOrCreateComment(verdict, ctx, 'github', {
    list: async (page) => ((await gitlab(ctx, 'GET', `${pull}/comments?pagelen=100&page=${page}`, undefined, 'reading the comments')).json as { values?: { id: number; content?: { raw?: string } }[] }).values
      ?.map((c) => ({ id: c.id, body: c.content?.raw })) ?? [],
    edit: (id, body) => gitlab(ctx, 'PUT', `${pull}/comments/${id}`, { content: { raw: body } }, 'editing the comment'),
    create: (body) => gitlab(ctx, 'POST', `${pull}/comments`, { content: { raw: body } }, 'commenting'),
  });
}

async function bitbucketReport(verdict: Verdict, ctx: SendContext, repo: string, sha: string): Promise<void> {
  const report = `${repo}/commit/${encodeURIComponent(sha)}/reports/${reportKey(verdict)}`;
  if ((ctx.state.sent ?? 0) < 1) {
    await gitlab(ctx, 'PUT', report, {
      title: checkName(verdict.upload.category), details: titleOf(verdict).slice(0, 2000), report_type: 'SECURITY', reporter: 'Scanyard',
      link: `${ctx.baseUrl}${verdict.path}`, result: verdict.conclusion === 'failure' ? 'FAILED' : 'PASSED',
    }, 'writing the Code Insights report');
    await ctx.save(sha, { ...ctx.state, sent: 1 });
  }
  const annotations = verdict.new_findings.items.filter((f) => f.path).slice(0, MAX_ANNOTATED).map((f, i) => ({
    external_id: `finding-${i}`, annotation_type: 'VULNERABILITY', summary: `${f.rule_id}: ${f.message}`.slice(0, 450),
    severity: f.severity === 'info' ? 'LOW' : f.severity.toUpperCase(), path: f.path, ...(f.start_line !== null ? { line: f.start_line } : {}),
  }));
  const batches = chunk(annotations, BITBUCKET_ANNOTATIONS_PER_REQUEST);
  // state.sent: 1 once the report is written, then one more per batch of annotations.
  for (let sent = (ctx.state.sent ?? 1) - 1; sent < batches.length; sent++) {
    await gitlab(ctx, 'POST', `${report}/annotations`, batches[sent], 'adding the report\'s annotations');
    await ctx.save(sha, { ...ctx.state, sent: sent + 2 });
  }
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
