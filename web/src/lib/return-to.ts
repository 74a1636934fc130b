/** Only a path on this site: never another origin (an open redirect through ?return_to). */
export function safeReturnTo(value: string | null): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/';
  return value;
}

/** The login screen's URL that leads back to `here` after signing in. */
export function loginUrl(here: string): string {
  return `/login?return_to=${encodeURIComponent(here)}`;
}
