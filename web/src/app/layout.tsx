import { useEffect, useRef, type ReactNode } from 'react';
import { Navigate, Outlet, ScrollRestoration, useLocation } from 'react-router';
import { ApiError } from '../api/client';
import { PageSkeleton } from '../components/Skeleton';
import { ErrorNotice } from '../components/States';
import { useMe } from '../features/auth/api';
import { loginUrl } from '../lib/return-to';
import { AppHeader } from './AppHeader';

/** Every screen but the login: waits for the session, then the header and the screen. */
export function SignedInLayout() {
  const me = useMe();
  const location = useLocation();
  if (me.error instanceof ApiError && me.error.status === 401) {
    return <Navigate to={loginUrl(location.pathname + location.search)} replace />;
  }
  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      {me.data && <AppHeader user={me.data} />}
      {!me.data && <header className="app-header"><div className="app-header-inner" /></header>}
      <Main>
        {me.data ? <Outlet /> : me.error
          ? <ErrorNotice error={me.error} onRetry={() => void me.refetch()} title="Scanyard could not load your account" />
          : <PageSkeleton label="Loading your account…" cards={3} />}
      </Main>
      <ScrollRestoration />
    </>
  );
}

/** Moves focus to the content on navigation, so keyboard and screen-reader users start there. */
function Main({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const ref = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    ref.current?.focus({ preventScroll: true });
  }, [pathname]);
  return <main id="main" className="page" tabIndex={-1} ref={ref}>{children}</main>;
}
