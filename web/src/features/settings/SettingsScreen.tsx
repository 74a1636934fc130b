import { useState } from 'react';
import type { CreatedApiKey } from '../../api/types';
import { Avatar } from '../../components/Avatar';
import { PageHeader } from '../../components/PageHeader';
import { useUser } from '../auth/session';
import { CreateKeyForm } from './CreateKeyForm';
import { NewKeySecret } from './NewKeySecret';
import { KeyList } from './KeyList';

export function SettingsScreen() {
  const user = useUser();
  const [created, setCreated] = useState<CreatedApiKey>();
  const [creating, setCreating] = useState(false);

  return (
    <>
      <PageHeader title="Settings" />
      <section className="card profile" aria-labelledby="profile-title">
        <Avatar url={user.avatar_url} login={user.login} size={48} />
        <div>
          <h2 id="profile-title" className="profile-name">{user.name || user.login}</h2>
          <p className="muted">
            @{user.login}
            {user.email && <> · {user.email}</>}
            {' · '}{user.provider ? `signed in with ${user.provider.type}` : 'local account'}
            {user.is_admin && ' · site administrator'}
          </p>
        </div>
      </section>

      <section className="section" aria-labelledby="keys-title">
        <div className="section-header">
          <div>
            <h2 id="keys-title">API keys</h2>
            <p className="muted">Keys let programs such as CI pipelines upload and read scan results as you.</p>
          </div>
          {!creating && <button type="button" className="button button-primary" onClick={() => { setCreating(true); setCreated(undefined); }}>Create API key</button>}
        </div>
        {created && <NewKeySecret apiKey={created} onDone={() => setCreated(undefined)} />}
        {creating && (
          <CreateKeyForm
            orgs={user.orgs}
            onCreated={(key) => { setCreated(key); setCreating(false); }}
            onCancel={() => setCreating(false)}
          />
        )}
        <KeyList orgs={user.orgs} />
      </section>
    </>
  );
}
