/**
 * Grey shapes where content is about to appear, so a screen keeps its layout while it loads instead
 * of showing a spinner in an empty page. Announced once to assistive technology as loading.
 */
export function Skeleton({ className = '' }: { className?: string }) {
  return <span className={`skeleton ${className}`} aria-hidden="true" />;
}

/** `label` is announced; inside a PageSkeleton (which announces itself) there is none. */
export function TableSkeleton({ rows = 5, label }: { rows?: number; label?: string }) {
  return (
    <div className="table-wrap skeleton-table" role={label ? 'status' : undefined} aria-label={label}>
      <div className="skeleton-row skeleton-head"><Skeleton className="skeleton-text" /></div>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton-row">
          <Skeleton className="skeleton-text skeleton-wide" />
          <Skeleton className="skeleton-text" />
          <Skeleton className="skeleton-text skeleton-short" />
        </div>
      ))}
    </div>
  );
}

/** A screen's header, a row of cards and a table: what most screens look like once loaded. */
export function PageSkeleton({ label = 'Loading…', cards = 0 }: { label?: string; cards?: number }) {
  return (
    <div role="status" aria-label={label} className="page-skeleton">
      <div className="page-header">
        <div className="page-header-text">
          <Skeleton className="skeleton-eyebrow" />
          <Skeleton className="skeleton-title" />
        </div>
      </div>
      {cards > 0 && (
        <div className="skeleton-cards">
          {Array.from({ length: cards }, (_, i) => <div key={i} className="card skeleton-card"><Skeleton className="skeleton-text" /><Skeleton className="skeleton-block" /></div>)}
        </div>
      )}
      <TableSkeleton />
    </div>
  );
}
