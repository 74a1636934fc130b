import { useState } from 'react';
import { api, call, messageOf } from '../api/client';
import type { CurrentUser } from '../api/types';
import { Link, navigate, useLocation } from '../router';
import { Avatar } from './Avatar';
import { Logo } from './Logo';

const NAV = [
  { to: '/', label: 'Dashboard', active: (path: string) => path === '/' || path.startsWith('/orgs/') || path.startsWith('/repos/') },
  { to: '/settings', label: 'Settings', active: (path: string) => path.startsWith('/settings') },
];

export function AppHeader({ user }: { user: CurrentUser }) {
  const { pathname } = useLocation();
  const [error, setError] = useState<string>();

  const logout = async () => {
    try {
      await call(api.POST('/auth/logout'));
      navigate('/login', { replace: true });
    } catch (caught) {
      setError(`Could not sign out: ${messageOf(caught)}`);
    }
  };

  return (
    <header className="app-header">
      <div className="app-header-inner">
        <Link to="/" className="brand" aria-label="Scanyard dashboard">
          <Logo />
          <span>Scanyard</span>
        </Link>
        <nav className="app-nav" aria-label="Main">
          {NAV.map((item) => (
            <Link key={item.to} to={item.to} className="app-nav-link" aria-current={item.active(pathname) ? 'page' : undefined}>
              {item.label}
            </Link>
          ))}
        </nav>
        <div className="app-user">
          <span className="app-user-name" title={user.name ?? user.login}>
            <Avatar url={user.avatar_url} login={user.login} size={26} />
            <span className="app-user-login">{user.login}</span>
            {user.is_admin && <span className="tag">Admin</span>}
          </span>
          <button type="button" className="button button-small button-quiet" onClick={() => void logout()}>Log out</button>
        </div>
      </div>
      {error && <div className="notice notice-error app-header-error" role="alert">{error}</div>}
    </header>
  );
}
