import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

type Changes = Record<string, string | number | null>;

/**
 * The query string as state: filters, tabs and pages live in the URL so that a shared link shows
 * the same view. A change replaces the history entry (typing in a filter is not navigation) unless
 * `push` is asked for (paging is).
 */
export function useSearchState(): [URLSearchParams, (changes: Changes, options?: { push?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  const update = useCallback((changes: Changes, options: { push?: boolean } = {}) => {
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [name, value] of Object.entries(changes)) {
        if (value === null || value === '') next.delete(name);
        else next.set(name, String(value));
      }
      return next;
    }, { replace: !options.push, preventScrollReset: !options.push });
  }, [setParams]);
  return [params, update];
}

/** A page number from the URL: 1 unless a positive integer is given. */
export function pageParam(params: URLSearchParams): number {
  return Math.max(1, Math.floor(Number(params.get('page'))) || 1);
}
