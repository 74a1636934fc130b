import { Link } from 'react-router';
import { PageHeader } from './PageHeader';

/** Nothing here for this user: says what was not found and leads somewhere that exists. */
export function NotFound({ what = 'page', back = { to: '/', label: 'Go to the dashboard' } }: {
  what?: string;
  back?: { to: string; label: string };
}) {
  const title = `${what.charAt(0).toUpperCase()}${what.slice(1)} not found`;
  return (
    <section className="not-found" aria-labelledby="page-title">
      <PageHeader title={title} />
      <p>There is no {what} at this address. It may have been removed, or you may not have access to it.</p>
      <p><Link to={back.to} className="button button-primary">{back.label}</Link></p>
    </section>
  );
}
