import { useState } from 'react';
import type { Webhook, WebhookSettings } from '../../api/types';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ProblemNotice } from '../../components/ProblemNotice';
import { SecretOnce } from '../../components/SecretOnce';
import { TableSkeleton } from '../../components/Skeleton';
import { EmptyState, Loaded } from '../../components/States';
import { SEVERITY_LABEL } from '../../lib/severity';
import { useSearchState } from '../../lib/use-search-state';
import { useCreateWebhook, useDeleteWebhook, usePing, useUpdateWebhook, useWebhooks } from './api';
import { Deliveries } from './Deliveries';
import { WebhookForm } from './WebhookForm';

/** A hook just created, with the secret it was given: the only time it is on screen (dismissed, it is dropped, the mutation's copy too). */
interface Created {
  hook: Webhook;
  secret: string;
}

/** An organization's webhooks (owners): each with its recent deliveries, a test ping, and its settings. */
export function WebhooksPanel({ orgId }: { orgId: string }) {
  const hooks = useWebhooks(orgId);
  const create = useCreateWebhook(orgId);
  const remove = useDeleteWebhook(orgId);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created>();
  const [query, setQuery] = useSearchState();
  const open = query.get('hook');

  return (
    <section className="section" aria-label="Webhooks">
      <div className="section-header">
        <p className="muted">Scanyard POSTs events to these URLs, signed with each hook&apos;s secret (<code>X-Scanyard-Signature-256</code>), and retries for a day.</p>
        {!creating && <button type="button" className="button button-primary" onClick={() => { setCreating(true); setCreated(undefined); }}>Add webhook</button>}
      </div>
      {created && (
        <SecretOnce title="Copy the webhook's secret now" value={created.secret} copyLabel="Copy secret" testId="new-webhook-secret" onDone={() => { setCreated(undefined); create.reset(); }}>
          <p>Your receiver checks each delivery&apos;s signature with it. Scanyard never shows it again; to change it, edit the hook and set a new one.</p>
        </SecretOnce>
      )}
      {creating && (
        <WebhookForm
          saving={create.isPending}
          error={create.error}
          onCancel={() => { create.reset(); setCreating(false); }}
          onSave={(settings) => create.mutate(settings as WebhookSettings, {
            onSuccess: (hook) => {
              setCreated({ hook, secret: (settings as WebhookSettings).secret });
              setCreating(false);
              setQuery({ hook: hook.id });
            },
          })}
        />
      )}
      {remove.isError && <ProblemNotice error={remove.error} lead="The webhook was not deleted." />}
      <Loaded query={hooks} skeleton={<TableSkeleton label="Loading webhooks…" rows={2} />}>
        {(list) => list.length === 0 && !creating ? (
          <EmptyState title="No webhooks yet">
            <p>Send new findings and failed gates to chat (Slack, Teams) or to your own service.</p>
          </EmptyState>
        ) : (
          <ul className="hook-list">
            {list.map((hook) => (
              <HookCard
                key={hook.id}
                orgId={orgId}
                hook={hook}
                open={open === hook.id}
                onToggle={() => setQuery({ hook: open === hook.id ? null : hook.id })}
                onDelete={() => remove.mutateAsync(hook.id)}
              />
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}

function HookCard({ orgId, hook, open, onToggle, onDelete }: {
  orgId: string;
  hook: Webhook;
  open: boolean;
  onToggle: () => void;
  onDelete: () => Promise<unknown>;
}) {
  const [editing, setEditing] = useState(false);
  const update = useUpdateWebhook(orgId, hook.id);
  const ping = usePing(orgId, hook.id);
  if (editing) {
    return (
      <li>
        <WebhookForm hook={hook} saving={update.isPending} error={update.error} onCancel={() => { update.reset(); setEditing(false); }}
          onSave={(settings) => update.mutate(settings, { onSuccess: () => setEditing(false) })} />
      </li>
    );
  }
  return (
    <li className="card hook-card" aria-label={`Webhook ${hook.url}`}>
      <div className="hook-head">
        <code className="hook-url">{hook.url}</code>
        <span className={`tag${hook.active ? '' : ' muted'}`}>{hook.active ? 'Active' : 'Paused'}</span>
      </div>
      <p className="muted hook-meta">
        {hook.events.join(', ')} · {hook.format} · findings from {SEVERITY_LABEL[hook.min_severity].toLowerCase()} up
        {hook.repository_ids && ` · ${hook.repository_ids.length} repositories`}
      </p>
      <div className="team-actions">
        <button type="button" className="button button-small" aria-expanded={open} onClick={onToggle}>{open ? 'Hide deliveries' : 'Deliveries'}</button>
        <button type="button" className="button button-small" disabled={ping.isPending} onClick={() => ping.mutate(undefined, { onSuccess: () => { if (!open) onToggle(); } })}>Send test ping</button>
        <button type="button" className="button button-small" onClick={() => setEditing(true)}>Edit</button>
        <ConfirmButton label="Delete" confirmLabel={`Delete the webhook to ${new URL(hook.url).host}`} onConfirm={onDelete} />
      </div>
      {ping.isError && <ProblemNotice error={ping.error} lead="No ping was sent." />}
      {open && <Deliveries orgId={orgId} hookId={hook.id} />}
    </li>
  );
}
