import { useEffect, useRef, type ReactNode } from 'react';
import { ApiError } from './api/client';
import { AppHeader } from './components/AppHeader';
import { ErrorNotice, Loading } from './components/States';
import { matchPath, useLocation } from './router';
import { SessionProvider, useSession } from './session';
import { LoginScreen } from './screens/login/LoginScreen';
import { DashboardScreen } from './screens/dashboard/DashboardScreen';
import { OrgScreen } from './screens/org/OrgScreen';
import { RepoScreen } from './screens/repo/RepoScreen';
import { SettingsScreen } from './screens/settings/SettingsScreen';
import { NotFoundScreen } from './screens/NotFoundScreen';

export function App() {
  const { pathname } = useLocation();
  if (pathname === '/login') return <LoginScreen />;
  return (
    <SessionProvider>
      <SignedIn />
    </SessionProvider>
  );
}

function SignedIn() {
  const { user, error, refresh } = useSession();
  if (!user) {
    // A 401 is already on its way to the login screen.
    const unexpected = error !== undefined && !(error instanceof ApiError && error.status === 401);
    return (
      <main className="page page-center">
        {unexpected ? <ErrorNotice error={error} onRetry={() => void refresh()} title="Scanyard could not load your account" /> : <Loading />}
      </main>
    );
  }
  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      <AppHeader user={user} />
      <Main>
        <Screen />
      </Main>
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

function Screen() {
  const { pathname } = useLocation();
  if (matchPath('/', pathname)) return <DashboardScreen />;
  if (matchPath('/settings', pathname)) return <SettingsScreen />;
  const org = matchPath('/orgs/:id', pathname);
  if (org) return <OrgScreen key={org.id} id={org.id!} />;
  const repo = matchPath('/repos/:id', pathname);
  if (repo) return <RepoScreen key={repo.id} id={repo.id!} />;
  return <NotFoundScreen />;
}
