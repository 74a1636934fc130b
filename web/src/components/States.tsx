import type { ReactNode } from 'react';
import { isNotFound, messageOf } from '../api/client';

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}

/** An error in words, as the server put it, with a way to try again when that can help. */
export function ErrorNotice({ error, onRetry, title = 'Something went wrong' }: { error: unknown; onRetry?: () => void; title?: string }) {
  return (
    <div className={`notice notice-error${onRetry ? ' notice-action' : ''}`} role="alert">
      <div>
        <strong>{title}.</strong> {messageOf(error)}
      </div>
      {onRetry && <button type="button" className="button button-small" onClick={onRetry}>Try again</button>}
    </div>
  );
}

interface QueryState<T> {
  data: T | undefined;
  error: unknown;
  refetch: () => unknown;
}

/**
 * Shows a query's data, or why there is none yet: a skeleton while loading, the not-found page for a
 * 404 when the caller gives one, otherwise the error with a retry. Data already shown stays when a
 * later refresh fails, with a notice above it.
 */
export function Loaded<T>({ query, children, skeleton, notFound }: {
  query: QueryState<T>;
  children: (data: T) => ReactNode;
  skeleton: ReactNode;
  notFound?: ReactNode;
}) {
  const retry = () => void query.refetch();
  if (query.data !== undefined) {
    return (
      <>
        {query.error != null && <ErrorNotice error={query.error} onRetry={retry} title="Could not refresh" />}
        {children(query.data)}
      </>
    );
  }
  if (query.error != null) {
    if (notFound && isNotFound(query.error)) return <>{notFound}</>;
    return <ErrorNotice error={query.error} onRetry={retry} />;
  }
  return <>{skeleton}</>;
}
