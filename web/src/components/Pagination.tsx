import type { PageInfo } from '../api/pagination';

/** "1–30 of 120" with previous and next; hidden when everything fits on one page. */
export function Pagination({ info, onPage, label }: { info: PageInfo; onPage: (page: number) => void; label: string }) {
  if (info.total <= info.perPage && info.page === 1) return null;
  const from = info.total === 0 ? 0 : (info.page - 1) * info.perPage + 1;
  const to = Math.min(info.total, info.page * info.perPage);
  return (
    <nav className="pagination" aria-label={`${label} pages`}>
      <span className="muted">
        {from.toLocaleString()}–{to.toLocaleString()} of {info.total.toLocaleString()}
      </span>
      <span className="pagination-buttons">
        <button type="button" className="button button-small" disabled={info.page <= 1} onClick={() => onPage(info.page - 1)}>
          Previous
        </button>
        <span className="muted">Page {info.page} of {info.lastPage}</span>
        <button type="button" className="button button-small" disabled={info.page >= info.lastPage} onClick={() => onPage(info.page + 1)}>
          Next
        </button>
      </span>
    </nav>
  );
}
