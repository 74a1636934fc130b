import { formatDateTime, formatRelative } from '../lib/format';

/** "5 minutes ago", with the exact time on hover and for assistive technology. */
export function Time({ iso, fallback = '—' }: { iso: string | null | undefined; fallback?: string }) {
  if (!iso) return <span className="muted">{fallback}</span>;
  return <time dateTime={iso} title={formatDateTime(iso)}>{formatRelative(iso)}</time>;
}
