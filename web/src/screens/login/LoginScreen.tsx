import { useEffect } from 'react';
import { api, call, messageOf } from '../../api/client';
import { useSubmit } from '../../lib/useSubmit';
import type { Provider } from '../../api/types';
import { Logo } from '../../components/Logo';
import { Loading } from '../../components/States';
import { navigate, safeReturnTo, useLocation } from '../../router';
import { useResource } from '../../lib/useResource';

export function LoginScreen() {
  const { query } = useLocation();
  const returnTo = safeReturnTo(query.get('return_to'));
  const failure = query.get('error');
  const providers = useResource(async (signal) => (await call(api.GET('/auth/providers', { signal }))).data, 'providers');
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
        {providers.data === undefined && providers.error === undefined && <Loading label="Loading sign-in options…" />}
        {providers.error !== undefined && (
          <div className="notice notice-error" role="alert">
            Sign-in options could not be loaded: {messageOf(providers.error)}{' '}
            <button type="button" className="button button-small" onClick={providers.reload}>Try again</button>
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
  const { busy, error, run } = useSubmit();
  const signIn = () => run(async () => {
    await call(api.POST('/auth/dev-login'));
    navigate(returnTo, { replace: true });
  });
  return (
    <div className="login-actions">
      <button type="button" className="button button-primary button-block" disabled={busy} onClick={() => void signIn()}>
        {busy ? 'Signing in…' : 'Dev Login'}
      </button>
      <p className="hint">
        No sign-in provider is configured, so this instance offers a local administrator account for
        development. Configure <code>SERVICE_PROVIDERS</code> before sharing it.
      </p>
      {error && <div className="notice notice-error" role="alert">Development login failed: {error}</div>}
    </div>
  );
}
