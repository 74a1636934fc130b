import type { ReactNode } from 'react';
import { messageOf } from '../api/client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

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

/** Shows the data, or why there is none yet: the loading, error and empty states in one place. */
export function Loaded<T>({ resource, children, label }: {
  resource: { data: T | undefined; error: unknown; loading: boolean; reload: () => void };
  children: (data: T) => ReactNode;
  label?: string;
}) {
  if (resource.data !== undefined) {
    return (
      <>
        {resource.error !== undefined && <ErrorNotice error={resource.error} onRetry={resource.reload} title="Could not refresh" />}
        {children(resource.data)}
      </>
    );
  }
  if (resource.error !== undefined) return <ErrorNotice error={resource.error} onRetry={resource.reload} />;
  return <Loading label={label} />;
}
