import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { messageOf } from '../../api/client';
import type { Provider } from '../../api/types';
import { Logo } from '../../components/Logo';
import { Skeleton } from '../../components/Skeleton';
import { safeReturnTo } from '../../lib/return-to';
import { useDevLogin, useProviders } from './api';

/**
 * The server sends a code, never words: anyone can craft a /login link, so text from the URL is not
 * shown. An unknown code gets the general sentence.
 */
const SIGN_IN_ERRORS: Record<string, string> = {
  cancelled: 'Sign-in was cancelled on the forge.',
  refused: 'The forge refused the sign-in.',
  provider_gone: 'That sign-in provider is no longer configured.',
  forge_failed: 'The forge could not be reached or gave an answer we could not use. Try again in a moment.',
  not_verified: 'The sign-in could not be verified, so no one was signed in. Start signing in again from this page.',
};
const SIGN_IN_FAILED = 'Try again, or ask an administrator if it keeps happening.';

export function LoginScreen() {
  const [query] = useSearchParams();
  const returnTo = safeReturnTo(query.get('return_to'));
  const code = query.get('error');
  const failure = code === null ? null : (Object.hasOwn(SIGN_IN_ERRORS, code) ? SIGN_IN_ERRORS[code] : SIGN_IN_FAILED);
  const providers = useProviders();
  useEffect(() => {
    document.title = 'Sign in · Scanyard';
  }, []);

  return (
    <main className="login" id="main">
      <section className="login-card" aria-labelledby="login-title">
        <div className="login-brand">
          <Logo size={36} />
          <span>Scanyard</span>
        </div>
        <h1 id="login-title">Sign in</h1>
        <p className="muted">The security scan results of every repository, in one place.</p>
        {failure && (
          <div className="notice notice-error" role="alert">
            <strong>Sign-in failed.</strong> {failure}
          </div>
        )}
        {providers.isPending && <div className="login-actions" aria-busy="true" aria-label="Loading sign-in options"><Skeleton className="skeleton-button" /></div>}
        {providers.isError && (
          <div className="notice notice-error" role="alert">
            Sign-in options could not be loaded: {messageOf(providers.error)}{' '}
            <button type="button" className="button button-small" onClick={() => void providers.refetch()}>Try again</button>
          </div>
        )}
        {providers.data && (providers.data.length > 0
          ? <ProviderButtons providers={providers.data} returnTo={returnTo} />
          : <DevLogin returnTo={returnTo} />)}
      </section>
      <p className="login-footer muted">
        Uploading from CI? Use an API key from Settings. API reference: <a href="/swagger/index.html">OpenAPI</a>
      </p>
    </main>
  );
}

function ProviderButtons({ providers, returnTo }: { providers: Provider[]; returnTo: string }) {
  return (
    <div className="login-actions">
      {providers.map((provider) => (
        // A full page load: the server redirects on to the forge.
        <a
          key={provider.id}
          className="button button-primary button-block"
          href={`/auth/login/${encodeURIComponent(provider.id)}?return_to=${encodeURIComponent(returnTo)}`}
        >
          Sign in with {provider.name}
        </a>
      ))}
    </div>
  );
}

function DevLogin({ returnTo }: { returnTo: string }) {
  const navigate = useNavigate();
  const login = useDevLogin();
  // Busy from the click until the next screen shows, so it cannot be sent twice.
  const busy = login.isPending || login.isSuccess;
  const signIn = () => login.mutate(undefined, { onSuccess: () => void navigate(returnTo, { replace: true }) });
  return (
    <div className="login-actions">
      <button type="button" className="button button-primary button-block" disabled={busy} onClick={signIn}>
        {busy ? 'Signing in…' : 'Dev Login'}
      </button>
      <p className="hint">
        No sign-in provider is configured, so this instance offers a local administrator account for
        development. Configure <code>SERVICE_PROVIDERS</code> before sharing it.
      </p>
      {login.isError && <div className="notice notice-error" role="alert">Development login failed: {messageOf(login.error)}</div>}
    </div>
  );
}
