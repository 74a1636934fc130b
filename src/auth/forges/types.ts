export interface ForgeUser {
  forgeUserId: string;
  login: string;
  name: string | null;
  email: string | null;
  avatarUrl: string | null;
}

export interface Forge {
  /** Where to send the browser; PKCE S256, the secret never goes in it. */
  authorizeUrl(p: { state: string; codeChallenge: string; redirectUri: string }): string;
  /** Swaps the code from the callback for an access token. */
  exchangeCode(p: { code: string; codeVerifier: string; redirectUri: string }): Promise<string>;
  fetchUser(accessToken: string): Promise<ForgeUser>;
}

export interface ForgeOptions {
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * unreachable: network error; timeout: no answer in time; rejected: the forge refused (OAuth error);
 * http: a non-2xx answer without an OAuth error; malformed: not JSON, or not the documented shape.
 */
export type ForgeErrorKind = 'unreachable' | 'timeout' | 'rejected' | 'http' | 'malformed';

/** The message is safe to show to the user: it never holds tokens, codes or secrets. */
export class ForgeError extends Error {
  override readonly name = 'ForgeError';
  readonly kind: ForgeErrorKind;

  constructor(message: string, kind: ForgeErrorKind, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
  }
}
