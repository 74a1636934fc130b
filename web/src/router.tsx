/**
 * A small router on the History API: every screen has a URL that can be shared, reloaded and
 * navigated with back/forward, without a routing library.
 */
import { useCallback, useMemo, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

const currentUrl = () => window.location.pathname + window.location.search;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === currentUrl()) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
  if (!options.replace) window.scrollTo(0, 0);
}

/** Sends the user to sign in, and back to where they were afterwards. */
export function redirectToLogin(): void {
  if (window.location.pathname === '/login') return;
  navigate(`/login?return_to=${encodeURIComponent(currentUrl())}`, { replace: true });
}

/** Only a path on this site: never another origin (an open redirect through ?return_to). */
export function safeReturnTo(value: string | null): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/';
  return value;
}

export interface Location {
  pathname: string;
  query: URLSearchParams;
  url: string;
}

export function useLocation(): Location {
  const url = useSyncExternalStore(subscribe, currentUrl);
  return useMemo(() => {
    const parsed = new URL(url, window.location.origin);
    return { pathname: parsed.pathname, query: parsed.searchParams, url };
  }, [url]);
}

/** Matches "/orgs/:id" against a pathname; the decoded params, or null. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = pathname.replace(/\/+$/, '').split('/');
  if (pathname === '/') got.splice(1, 1, '');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) {
      if (!g) return null;
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) {
      return null;
    }
  }
  return params;
}

/**
 * The query string as state: filters, tabs and pages live in the URL so that a shared link shows
 * the same view. Setting a value replaces the history entry (typing in a filter is not navigation).
 */
export function useQueryState(): [URLSearchParams, (changes: Record<string, string | number | null>, options?: { push?: boolean }) => void] {
  const { query, pathname } = useLocation();
  const update = useCallback((changes: Record<string, string | number | null>, options: { push?: boolean } = {}) => {
    const next = new URLSearchParams(window.location.search);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null || value === '') next.delete(name);
      else next.set(name, String(value));
    }
    const search = next.toString();
    navigate(`${pathname}${search ? `?${search}` : ''}`, { replace: !options.push });
  }, [pathname]);
  return [query, update];
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/** An ordinary link (opens in a new tab, can be copied) that navigates in place on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (rest.target && rest.target !== '_self') return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handleClick} {...rest} />;
}
