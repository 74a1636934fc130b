import { Link, useLocation } from 'react-router';
import { messageOf } from '../api/client';
import type { CurrentUser } from '../api/types';
import { Avatar } from '../components/Avatar';
import { Logo } from '../components/Logo';
import { useLogout } from '../features/auth/api';

const NAV = [
  { to: '/', label: 'Dashboard', active: (path: string) => path === '/' || path.startsWith('/orgs/') || path.startsWith('/repos/') },
  { to: '/audit', label: 'Audit log', adminOnly: true, active: (path: string) => path.startsWith('/audit') },
  { to: '/settings', label: 'Settings', active: (path: string) => path.startsWith('/settings') },
];

export function AppHeader({ user }: { user: CurrentUser }) {
  const { pathname } = useLocation();
  const logout = useLogout();

  return (
    <header className="app-header">
      <div className="app-header-inner">
        <Link to="/" className="brand" aria-label="Scanyard dashboard">
          <Logo />
          <span>Scanyard</span>
        </Link>
        <nav className="app-nav" aria-label="Main">
          {NAV.filter((item) => !item.adminOnly || user.is_admin).map((item) => (
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
          <button
            type="button"
            className="button button-small button-quiet"
            disabled={logout.isPending}
            onClick={() => logout.mutate()}
          >
            Log out
          </button>
        </div>
      </div>
      {logout.isError && <div className="notice notice-error app-header-error" role="alert">Could not sign out: {messageOf(logout.error)}</div>}
    </header>
  );
}
