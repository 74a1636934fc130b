// @ts-check
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * @typedef {{ commit: string | null, ref: string | null, baseRef: string | null, source: string, headSha?: string | null, baseSha?: string | null }} CiContext
 * @typedef {Record<string, string | undefined>} Env
 */

/**
 * The commit, ref and (for a pull request) base branch of the build, from the CI's own variables,
 * else from git in `cwd`. Refs are full (refs/heads/…, refs/tags/…) or pull requests (refs/pull/N/…,
 * refs/merge-requests/N/head, pr/N), as the service reads them.
 * @param {Env} env
 * @param {string} cwd
 * @returns {CiContext}
 */
export function ciContext(env, cwd) {
  for (const detect of [githubLike, gitlab, bitbucket, jenkins]) {
    const found = detect(env);
    if (found) return found;
  }
  return fromGit(cwd);
}

/** GitHub Actions; Gitea and Forgejo Actions set the same variables. @param {Env} env @returns {CiContext | null} */
function githubLike(env) {
  if (env.GITHUB_ACTIONS !== 'true' && env.GITEA_ACTIONS !== 'true' && env.FORGEJO_ACTIONS !== 'true') return null;
  const source = env.FORGEJO_ACTIONS === 'true' ? 'Forgejo Actions' : env.GITEA_ACTIONS === 'true' ? 'Gitea Actions' : 'GitHub Actions';
  return { commit: env.GITHUB_SHA || null, ref: env.GITHUB_REF || null, baseRef: env.GITHUB_BASE_REF || null, source, ...pullRequestShas(env.GITHUB_EVENT_PATH) };
}

/**
 * A pull_request event's head and base commits (the event payload GitHub Actions writes to
 * GITHUB_EVENT_PATH): GITHUB_SHA is the merge commit, while the check run belongs on the head.
 * @param {string | undefined} file
 * @returns {{ headSha?: string, baseSha?: string }}
 */
function pullRequestShas(file) {
  if (!file) return {};
  try {
    const event = JSON.parse(readFileSync(file, 'utf8'));
    const head = event?.pull_request?.head?.sha;
    const base = event?.pull_request?.base?.sha;
    return { ...(typeof head === 'string' ? { headSha: head } : {}), ...(typeof base === 'string' ? { baseSha: base } : {}) };
  } catch {
    return {};
  }
}

/** @param {Env} env @returns {CiContext | null} */
function gitlab(env) {
  if (env.GITLAB_CI !== 'true') return null;
  let ref = null;
  if (env.CI_MERGE_REQUEST_IID) ref = `refs/merge-requests/${env.CI_MERGE_REQUEST_IID}/head`;
  else if (env.CI_COMMIT_TAG) ref = `refs/tags/${env.CI_COMMIT_TAG}`;
  else if (env.CI_COMMIT_BRANCH || env.CI_COMMIT_REF_NAME) ref = `refs/heads/${env.CI_COMMIT_BRANCH || env.CI_COMMIT_REF_NAME}`;
  return {
    commit: env.CI_COMMIT_SHA || null, ref, baseRef: env.CI_MERGE_REQUEST_TARGET_BRANCH_NAME || null, source: 'GitLab CI',
    // The merge request's merge base, which its verdict compares against.
    baseSha: env.CI_MERGE_REQUEST_DIFF_BASE_SHA || null,
  };
}

/** @param {Env} env @returns {CiContext | null} */
function bitbucket(env) {
  if (!env.BITBUCKET_BUILD_NUMBER) return null;
  let ref = null;
  if (env.BITBUCKET_PR_ID) ref = `pr/${env.BITBUCKET_PR_ID}`;
  else if (env.BITBUCKET_TAG) ref = `refs/tags/${env.BITBUCKET_TAG}`;
  else if (env.BITBUCKET_BRANCH) ref = `refs/heads/${env.BITBUCKET_BRANCH}`;
  return { commit: env.BITBUCKET_COMMIT || null, ref, baseRef: env.BITBUCKET_PR_DESTINATION_BRANCH || null, source: 'Bitbucket Pipelines' };
}

/** Multibranch pipelines set CHANGE_* for pull requests. @param {Env} env @returns {CiContext | null} */
function jenkins(env) {
  if (!env.JENKINS_URL) return null;
  let ref = null;
  const branch = env.BRANCH_NAME || env.GIT_BRANCH?.replace(/^origin\//, '');
  if (env.CHANGE_ID) ref = `pr/${env.CHANGE_ID}`;
  else if (env.TAG_NAME) ref = `refs/tags/${env.TAG_NAME}`;
  else if (branch) ref = `refs/heads/${branch}`;
  return { commit: env.GIT_COMMIT || null, ref, baseRef: env.CHANGE_TARGET || null, source: 'Jenkins' };
}

/** @param {string} cwd @returns {CiContext} */
function fromGit(cwd) {
  const git = (/** @type {string[]} */ ...args) => {
    try {
      return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
    } catch {
      return null;
    }
  };
  const commit = git('rev-parse', 'HEAD');
  const branch = git('symbolic-ref', '--quiet', 'HEAD');
  return { commit, ref: branch, baseRef: null, source: commit ? 'git' : 'none' };
}
