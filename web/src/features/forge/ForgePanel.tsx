import { useState, type FormEvent } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SelectField, TextField } from '../../components/Field';
import { ProblemNotice } from '../../components/ProblemNotice';
import { TableSkeleton } from '../../components/Skeleton';
import { Loaded } from '../../components/States';
import { Time } from '../../components/Time';
import { useProviders } from '../auth/api';
import { useForgeLink, useLinkForge, useSyncForge, useUnlinkForge } from './api';

/** Settings → Organization → Forge: link the organization to a forge owner, see how its sync goes, sync now. */
export function ForgePanel({ orgId, canManage }: { orgId: string; canManage: boolean }) {
  const link = useForgeLink(orgId);
  const sync = useSyncForge(orgId);
  const unlink = useUnlinkForge(orgId);

  return (
    <section className="section" aria-label="Forge">
      <Loaded query={link} skeleton={<TableSkeleton label="Loading the forge link…" rows={2} />}>
        {(data) => data === null ? (
          canManage ? <LinkForm orgId={orgId} /> : <p className="muted">This organization does not follow a forge.</p>
        ) : (
          <div className="card">
            <dl className="facts">
              <dt>Forge</dt><dd>{data.provider}: <strong>{data.owner}</strong></dd>
              <dt>Last sync</dt><dd>{data.syncing ? 'Syncing…' : <Time iso={data.last_synced_at} fallback="Not yet" />}</dd>
              <dt>Synced</dt><dd>{data.counts.repositories} repositories, {data.counts.members} members, {data.counts.teams} teams</dd>
            </dl>
            {data.last_error && !data.syncing && <p role="alert" className="notice notice-error">The last sync stopped: {data.last_error}. The previous state was kept.</p>}
            {canManage && (
              <div className="actions">
                <button type="button" className="button button-primary" disabled={sync.isPending || data.syncing} onClick={() => sync.mutate()}>
                  Sync now
                </button>
                <ConfirmButton label="Unlink" confirmLabel="Unlink: keep everything as local data" onConfirm={() => unlink.mutateAsync()} />
              </div>
            )}
            {sync.isError && <ProblemNotice error={sync.error} lead="The sync did not start." />}
            {unlink.isError && <ProblemNotice error={unlink.error} lead="The organization was not unlinked." />}
          </div>
        )}
      </Loaded>
    </section>
  );
}

function LinkForm({ orgId }: { orgId: string }) {
  const providers = useProviders();
  const linkForge = useLinkForge(orgId);
  const options = (providers.data ?? []).map((p) => ({ value: p.id, label: p.name }));
  const [provider, setProvider] = useState('');
  const [owner, setOwner] = useState('');
  const chosen = provider || options[0]?.value || '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    linkForge.mutate({ provider: chosen, owner: owner.trim() });
  };
  return (
    <form className="card form" onSubmit={submit} aria-label="Link to a forge">
      <p className="muted">Linking makes this organization follow a forge owner: its repositories, members and teams come from there.
        Only an owner/administrator of that owner on the forge, signed in with it, may link it.</p>
      {options.length > 0 && <SelectField id="forge-provider" label="Forge" value={chosen} onChange={setProvider} options={options} />}
      <TextField id="forge-owner" label="Owner (GitHub organization, GitLab group path, Gitea/Forgejo organization, Bitbucket workspace)" value={owner} onChange={setOwner} required maxLength={255} />
      {linkForge.isError && <ProblemNotice error={linkForge.error} lead="The organization was not linked." />}
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={linkForge.isPending || owner.trim() === '' || chosen === ''}>Link</button>
      </div>
    </form>
  );
}
