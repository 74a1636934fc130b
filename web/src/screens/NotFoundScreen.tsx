import { PageHeader } from '../components/PageHeader';
import { Link } from '../router';

export function NotFoundScreen() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>There is nothing at this address. It may have been removed, or you may not have access to it.</p>
      <p><Link to="/">Go to the dashboard</Link></p>
    </>
  );
}
