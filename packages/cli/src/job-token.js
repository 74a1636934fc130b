// @ts-check
import { CliError } from './client.js';

/**
 * The CI job's OIDC token, found the way each CI hands it to a job:
 * - GitHub Actions (`permissions: id-token: write`): GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=…
 *   with `Authorization: Bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN`, answering `{"value": "<jwt>"}`
 *   (as @actions/core getIDToken does);
 * - GitLab CI: an `id_tokens:` entry named SCANYARD_ID_TOKEN (its `aud` set in the job);
 * - Bitbucket Pipelines (`oidc: true`): $BITBUCKET_STEP_OIDC_TOKEN.
 * Null when the job has none.
 * @param {Record<string, string | undefined>} env
 * @param {string} audience
 * @param {string} userAgent
 * @returns {Promise<{ token: string, source: string } | null>}
 */
export async function findJobToken(env, audience, userAgent) {
  if (env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN) {
    const url = `${env.ACTIONS_ID_TOKEN_REQUEST_URL}&audience=${encodeURIComponent(audience)}`;
    /** @type {Response} */
    let res;
    try {
      res = await fetch(url, { headers: { authorization: `Bearer ${env.ACTIONS_ID_TOKEN_REQUEST_TOKEN}`, accept: 'application/json', 'user-agent': userAgent } });
    } catch (error) {
      throw new CliError(`could not get the GitHub Actions OIDC token: ${error instanceof Error ? error.message : String(error)}`);
    }
    const text = await res.text();
    if (res.status !== 200) throw new CliError(`could not get the GitHub Actions OIDC token: HTTP ${res.status} (does the job have "permissions: id-token: write"?)`);
    let value;
    try {
      value = JSON.parse(text).value;
    } catch {
      value = undefined;
    }
    if (typeof value !== 'string' || value === '') throw new CliError('could not get the GitHub Actions OIDC token: the answer has no value');
    return { token: value, source: 'GitHub Actions' };
  }
  if (env.SCANYARD_ID_TOKEN) return { token: env.SCANYARD_ID_TOKEN, source: 'GitLab CI (SCANYARD_ID_TOKEN)' };
  if (env.BITBUCKET_STEP_OIDC_TOKEN) return { token: env.BITBUCKET_STEP_OIDC_TOKEN, source: 'Bitbucket Pipelines' };
  return null;
}
