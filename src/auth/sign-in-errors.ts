/**
 * Why a forge sign-in failed, as the code the login screen receives in `?error=`. The screen shows
 * its own sentence for each (web/src/screens/login/LoginScreen.tsx) and never text from the URL,
 * which anyone can put in a link; the forge's own words go to the log.
 */
export const SIGN_IN_ERRORS = {
  cancelled: 'cancelled',
  refused: 'refused',
  provider_gone: 'provider_gone',
  forge_failed: 'forge_failed',
  /** A SAML Response that failed our checks (signature, audience, times, the binding to this browser). */
  not_verified: 'not_verified',
} as const;
export type SignInError = keyof typeof SIGN_IN_ERRORS;
