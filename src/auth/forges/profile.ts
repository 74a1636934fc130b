import { expectOk, getWithToken, malformed, type ForgeHttp } from './http.js';
import type { ForgeUser } from './types.js';

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asRecord(http: ForgeHttp, value: unknown, what: string): Json {
  if (!isRecord(value)) throw malformed(http, `an unexpected ${what}`);
  return value;
}

/** Forge ids are numbers (GitHub, GitLab, Gitea) or strings (Bitbucket uuid); we keep strings. */
export function requireId(http: ForgeHttp, value: unknown, field: string): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && value !== '') return value;
  throw malformed(http, `a user profile without a usable ${field}`);
}

export function requireText(http: ForgeHttp, value: unknown, field: string): string {
  if (typeof value === 'string' && value !== '') return value;
  throw malformed(http, `a user profile without a usable ${field}`);
}

/** Forges send "" or null for unset profile fields; both mean null here. */
export function optionalText(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** The address flagged both primary and verified, by the forge's own field names. */
export function primaryVerified(list: unknown[], primary: string, verified: string): string | null {
  const hit = list.find((e) => isRecord(e) && e[primary] === true && e[verified] === true);
  return isRecord(hit) ? optionalText(hit.email) : null;
}

/** GET a profile endpoint with the token; the answer must be a JSON object. */
export async function fetchProfile(http: ForgeHttp, url: string, token: string): Promise<Json> {
  const doing = 'fetching the user profile';
  return asRecord(http, expectOk(http, await getWithToken(http, url, token, doing), doing), 'user profile');
}

/**
 * The user of a /user answer with a numeric `id`, `email` and `avatar_url`, naming the fields this
 * forge keeps the login and the display name in.
 */
export function profileUser(http: ForgeHttp, user: Json, fields: { login: string; name: string }): ForgeUser {
  return {
    forgeUserId: requireId(http, user.id, 'id'),
    login: requireText(http, user[fields.login], fields.login),
    name: optionalText(user[fields.name]),
    email: optionalText(user.email),
    avatarUrl: optionalText(user.avatar_url),
  };
}
