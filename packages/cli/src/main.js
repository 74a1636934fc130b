// @ts-check
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { apiClient, CliError, problemDetail } from './client.js';
import { ciContext } from './ci.js';
import { findJobToken } from './job-token.js';
import { printGate, printUpload } from './report.js';

const { version } = createRequire(import.meta.url)('../package.json');

const USAGE = `Usage:
  scanyard upload FILE... --repo ORG/NAME [--category NAME] [--commit SHA] [--ref REF] [--base-ref BRANCH]
                          [--format sarif|cyclonedx|spdx|findings] [--wait] [--timeout SECONDS] [--fail-on-gate] [--create]
  scanyard gate --repo ORG/NAME

Options for every command:
  --url URL    the service (default: $SCANYARD_URL)
  --key KEY    an API key (default: $SCANYARD_KEY)
  --audience A the audience to ask the CI's OIDC token for (default: the service URL)

Without a key, in CI, the job's OIDC token is exchanged for a short-lived upload token (GitHub
Actions with "permissions: id-token: write", GitLab CI's id_tokens entry SCANYARD_ID_TOKEN, Bitbucket
Pipelines with "oidc: true"); the organization's CI trust rules say where it may upload. A key wins.

--repo names the organization and the repository. In an organization that follows a forge, the
forge's full name (acme/payments-api; GitLab group/subgroup/project) reaches the repository even
before a sync brought it; --create adds a missing repository to an organization that follows none.

--commit, --ref and --base-ref default to the CI's variables (GitHub Actions, GitLab CI, Bitbucket
Pipelines, Gitea/Forgejo Actions, Jenkins), else to git. --fail-on-gate waits, and exits 1 when an
upload's gate fails. Exit codes: 0 passed (or warned), 1 gate failed, 2 anything else.`;

/**
 * @typedef {{ write(text: string): unknown }} Output
 * @typedef {{ env: Record<string, string | undefined>, cwd: string, out: Output, err: Output }} Io
 */

/**
 * Runs one command; resolves to the exit code. Every failure ends as one line on stderr.
 * @param {string[]} argv
 * @param {Io} io
 */
export async function main(argv, io) {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.err.write(`scanyard: ${error.message}\n`);
      return error.exitCode;
    }
    io.err.write(`scanyard: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

/** @param {string[]} argv @param {Io} io */
async function run(argv, io) {
  /** @type {ReturnType<typeof parseArgs<{ options: typeof OPTIONS, allowPositionals: true }>>} */
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${error instanceof Error ? error.message : String(error)} (scanyard --help)`);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.out.write(`${version}\n`);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    io.out.write(`${USAGE}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (command === 'upload') return upload(rest, values, io);
  if (command === 'gate') {
    if (rest.length) throw new CliError(`gate takes no files (got ${rest.join(' ')})`);
    return gate(values, io);
  }
  throw new CliError(`unknown command "${command}" (scanyard --help)`);
}

const OPTIONS = /** @type {const} */ ({
  url: { type: 'string' },
  key: { type: 'string' },
  audience: { type: 'string' },
  repo: { type: 'string' },
  category: { type: 'string' },
  commit: { type: 'string' },
  ref: { type: 'string' },
  'base-ref': { type: 'string' },
  format: { type: 'string' },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  'fail-on-gate': { type: 'boolean' },
  create: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
});

/** @typedef {{ [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string }} Values */

/**
 * A client with the key given, else (in CI) with the token the job's OIDC token is exchanged for.
 * @param {Values} values @param {Io} io
 * @returns {Promise<{ api: ReturnType<typeof apiClient>, jobSource: string | null }>}
 */
async function connect(values, io) {
  const url = values.url ?? io.env.SCANYARD_URL;
  const key = values.key || io.env.SCANYARD_KEY;
  if (!url) throw new CliError('no service URL: set SCANYARD_URL or pass --url');
  try {
    new URL(url);
  } catch {
    throw new CliError(`the service URL "${url}" is not a URL`);
  }
  const userAgent = `scanyard-cli/${version}`;
  const onRetry = (/** @type {string} */ message) => io.err.write(`scanyard: ${message}\n`);
  if (key) return { api: apiClient({ url, key, userAgent, onRetry }), jobSource: null };

  const audience = values.audience ?? io.env.SCANYARD_AUDIENCE ?? url.replace(/\/+$/, '');
  const job = await findJobToken(io.env, audience, userAgent);
  if (!job) throw new CliError('no API key: set SCANYARD_KEY or pass --key (or run in CI with an OIDC job token: see docs/ci/)');
  const anonymous = apiClient({ url, key: '', userAgent, onRetry });
  const res = await anonymous.call('POST', 'auth/ci/token', { json: { token: job.token } });
  if (res.status === 401) {
    const reason = res.body && typeof res.body === 'object' && typeof res.body.reason === 'string' ? res.body.reason : 'refused';
    throw new CliError(`the ${job.source} OIDC token was refused (${reason}): ${problemDetail(res)}`);
  }
  if (res.status !== 200) throw new CliError(`exchanging the ${job.source} OIDC token failed (${res.status}): ${problemDetail(res)}`);
  io.out.write(`Using the ${job.source} OIDC token (no key): uploads to ${res.body.ref} until ${res.body.expires_at}\n`);
  return { api: apiClient({ url, key: res.body.token, userAgent, onRetry }), jobSource: job.source };
}

/** @param {string | undefined} repo */
function repoName(repo) {
  const match = repo ? /^([^/]+)\/(.+)$/.exec(repo) : null;
  if (!match) throw new CliError('--repo ORG/NAME is required (the organization and repository names, e.g. acme/payments-api)');
  return { org: /** @type {string} */ (match[1]), name: /** @type {string} */ (match[2]) };
}

/**
 * Where uploads go: a repository found here by organization and name; else, in an organization that
 * follows a forge owner, the forge full name (owner/name) the service looks up on the forge, creating
 * the repository if need be; else, with `create`, a repository added to the organization.
 * @typedef {{ repoId: string } | { orgId: string, fullName: string }} Target
 * @param {ReturnType<typeof apiClient>} api
 * @param {{ org: string, name: string }} repo
 * @param {boolean} create
 * @param {Io} io
 * @returns {Promise<Target>}
 */
async function findTarget(api, repo, create, io) {
  const found = await api.call('GET', 'api/v1/repos/lookup', { query: { org: repo.org, name: repo.name } });
  if (found.status === 200) return { repoId: found.body.id };
  failUnless(found, [404], `looking up ${repo.org}/${repo.name}`);
  const fullName = `${repo.org}/${repo.name}`;
  const linked = await linkedOrg(api, fullName);
  if (linked) return { orgId: linked, fullName };
  if (!create) throw new CliError(`repository ${fullName} was not found, or this key cannot see it (--create adds it; in an organization that follows a forge, name it as the forge does)`);

  const orgs = await api.call('GET', 'api/v1/orgs', { query: { q: repo.org, per_page: 100 } });
  failUnless(orgs, [200], 'looking up the organization');
  const org = /** @type {{ id: string, name: string }[]} */ (orgs.body).find((o) => o.name.toLowerCase() === repo.org.toLowerCase());
  if (!org) throw new CliError(`organization ${repo.org} was not found, or this key cannot see it`);
  const made = await api.call('POST', `api/v1/orgs/${encodeURIComponent(org.id)}/repos`, { json: { name: repo.name } });
  if (made.status === 409) return findTarget(api, repo, false, io);
  failUnless(made, [201], `creating ${repo.org}/${repo.name}`);
  io.out.write(`Created repository ${org.name}/${made.body.name}\n`);
  return { repoId: made.body.id };
}

/**
 * The organization (of those this key sees) that follows the forge owner `fullName` lies under; the
 * deepest owner wins (a GitLab subgroup linked beside its parent). Null when none does.
 * @param {ReturnType<typeof apiClient>} api @param {string} fullName
 * @returns {Promise<string | null>}
 */
async function linkedOrg(api, fullName) {
  const wanted = fullName.toLowerCase();
  /** @type {{ id: string, owner: string } | null} */
  let best = null;
  for (let page = 1; ; page++) {
    const orgs = await api.call('GET', 'api/v1/orgs', { query: { per_page: 100, page } });
    // A CI token reads no organization list: only a repository found by name is reachable with it.
    if (orgs.status !== 200 || !Array.isArray(orgs.body)) return null;
    for (const org of /** @type {{ id: string }[]} */ (orgs.body)) {
      const link = await api.call('GET', `api/v1/orgs/${encodeURIComponent(org.id)}/forge`);
      if (link.status !== 200) continue;
      const owner = String(link.body.owner).toLowerCase();
      if (wanted.startsWith(`${owner}/`) && (best === null || owner.length > best.owner.length)) best = { id: org.id, owner };
    }
    if (orgs.body.length < 100) return best?.id ?? null;
  }
}

/**
 * The repository a target names, for reads: in a linked organization, the one whose forge full name it is.
 * @param {ReturnType<typeof apiClient>} api @param {Target} target
 * @returns {Promise<string>}
 */
async function repoIdOf(api, target) {
  if ('repoId' in target) return target.repoId;
  const name = target.fullName.split('/').at(-1) ?? '';
  const list = await api.call('GET', `api/v1/orgs/${encodeURIComponent(target.orgId)}/repos`, { query: { q: name, per_page: 100 } });
  failUnless(list, [200], `looking up ${target.fullName}`);
  const hit = /** @type {{ id: string, full_name: string | null }[]} */ (list.body).find((r) => r.full_name?.toLowerCase() === target.fullName.toLowerCase());
  if (!hit) throw new CliError(`repository ${target.fullName} has no results here yet (it has not been synced or uploaded to)`);
  return hit.id;
}

/**
 * @param {import('./client.js').ApiResponse} res @param {number[]} expected @param {string} doing
 */
function failUnless(res, expected, doing) {
  if (expected.includes(res.status)) return;
  if (res.status === 401) throw new CliError(`the API key was refused: ${problemDetail(res)}`);
  throw new CliError(`${doing} failed (${res.status}): ${problemDetail(res)}`);
}

/** @param {string[]} files @param {Values} values @param {Io} io */
async function upload(files, values, io) {
  if (files.length === 0) throw new CliError('upload needs at least one file (scanyard upload results.sarif --repo ORG/NAME)');
  const repo = repoName(values.repo);
  const timeoutSeconds = values.timeout === undefined ? 600 : Number(values.timeout);
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) throw new CliError(`--timeout must be a whole number of seconds (got ${values.timeout})`);
  const contents = await Promise.all(files.map(async (file) => {
    try {
      return await readFile(path.resolve(io.cwd, file));
    } catch (error) {
      throw new CliError(`cannot read ${file}: ${/** @type {NodeJS.ErrnoException} */ (error).code ?? String(error)}`);
    }
  }));
  const { api, jobSource } = await connect(values, io);
  const context = ciContext(io.env, io.cwd);
  // A Bitbucket step token names the branch only, never the pull request: its uploads go to that
  // branch (the service refuses another ref), unless --ref says otherwise.
  const tokenRefOnly = jobSource === 'Bitbucket Pipelines';
  const commit = values.commit ?? context.commit;
  const ref = values.ref ?? (tokenRefOnly ? null : context.ref);
  const baseRef = values['base-ref'] ?? (tokenRefOnly ? null : context.baseRef);
  const target = await findTarget(api, repo, values.create ?? false, io);

  /** @type {{ file: string, id: string }[]} */
  const sent = [];
  for (const [i, file] of files.entries()) {
    const content = /** @type {Buffer} */ (contents[i]);
    // Already compressed files go as they are; the service recognises gzip by its magic bytes.
    const gzipped = content[0] === 0x1f && content[1] === 0x8b;
    const res = await api.call('POST', 'repoId' in target ? `api/v1/repos/${encodeURIComponent(target.repoId)}/upload` : `api/v1/orgs/${encodeURIComponent(target.orgId)}/upload`, {
      query: { repo: 'repoId' in target ? undefined : target.fullName, category: values.category, commit_sha: commit, ref, base_ref: baseRef, head_sha: context.headSha ?? undefined, base_sha: context.baseSha ?? undefined, format: values.format },
      headers: { 'content-type': 'application/octet-stream', ...(gzipped ? {} : { 'content-encoding': 'gzip' }) },
      body: gzipped ? content : gzipSync(content),
    });
    failUnless(res, [202], `uploading ${file}`);
    sent.push({ file, id: res.body.id });
    io.out.write(`${file}: uploaded as ${res.body.id} (${res.body.format}${ref ? `, ${ref}` : ''}${commit ? ` at ${commit.slice(0, 12)}` : ''})\n`);
  }
  if (!values.wait && !values['fail-on-gate']) return 0;

  const deadline = Date.now() + timeoutSeconds * 1000;
  let failedGates = 0;
  for (const { file, id } of sent) {
    const settled = await waitFor(api, id, deadline);
    if (!settled) throw new CliError(`timed out after ${timeoutSeconds}s waiting for ${file} (upload ${id}) to be processed`);
    printUpload(io.out, file, settled);
    if (settled.status === 'failed') throw new CliError(`processing ${file} failed: ${settled.error ?? 'no reason given'}`);
    if (settled.gate?.status === 'fail') failedGates++;
  }
  if (values['fail-on-gate'] && failedGates > 0) {
    throw new CliError(`the gate failed for ${failedGates} of ${sent.length} upload${sent.length === 1 ? '' : 's'} to ${repo.org}/${repo.name}`, 1);
  }
  return 0;
}

/**
 * Long-polls the upload (the service answers as soon as it settles) until it is complete or failed.
 * @param {ReturnType<typeof apiClient>} api @param {string} id @param {number} deadline
 */
async function waitFor(api, id, deadline) {
  for (;;) {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    const res = await api.call('GET', `api/v1/uploads/${encodeURIComponent(id)}`, { query: { wait: Math.max(0, Math.min(60, left)) } });
    failUnless(res, [200], `reading upload ${id}`);
    if (res.body.status === 'complete' || res.body.status === 'failed') return res.body;
    if (left <= 0) return null;
  }
}

/** @param {Values} values @param {Io} io */
async function gate(values, io) {
  const repo = repoName(values.repo);
  const { api } = await connect(values, io);
  const target = await repoIdOf(api, await findTarget(api, repo, false, io));
  const res = await api.call('GET', `api/v1/repos/${encodeURIComponent(target)}/gate`);
  failUnless(res, [200], `judging ${repo.org}/${repo.name}`);
  printGate(io.out, `${repo.org}/${repo.name}`, res.body);
  if (res.body.status === 'fail') throw new CliError(`the gate failed for ${repo.org}/${repo.name}`, 1);
  return 0;
}
