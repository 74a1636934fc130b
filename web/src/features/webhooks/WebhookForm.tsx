import { useId, useState, type FormEvent } from 'react';
import type { Webhook, WebhookSettings } from '../../api/types';
import { CheckGrid, SelectField, TextField } from '../../components/Field';
import { ProblemNotice } from '../../components/ProblemNotice';
import { SEVERITIES, SEVERITY_LABEL } from '../../lib/severity';
import { toggled } from '../../lib/sets';

type EventName = Webhook['events'][number];

/** Every event a hook may subscribe to, in words (the type makes sure none is left out). */
const EVENT_LABEL: Record<EventName, string> = {
  'upload.completed': 'An upload was processed (with its counts and gate)',
  'upload.failed': 'An upload failed',
  'findings.new': 'New or reopened findings (at or above the minimum severity)',
  'gate.failed': 'The gate failed',
  'advisory.matched': 'An advisory opened findings without an upload',
  'finding.dismissed': 'A finding was dismissed',
};
const EVENTS = Object.keys(EVENT_LABEL) as EventName[];

const FORMAT_LABEL: Record<Webhook['format'], string> = { json: 'JSON (the event itself)', slack: 'Slack message', teams: 'Microsoft Teams message' };
const FORMATS = Object.keys(FORMAT_LABEL) as Webhook['format'][];

/** A secret nobody has to think of: 32 random bytes as hex. */
function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A hook's settings. Creating one sets its secret (a random one is offered); editing leaves the secret
 * as it is unless a new one is typed, since the server never gives it back.
 */
export function WebhookForm({ hook, saving, error, onSave, onCancel }: {
  hook?: Webhook;
  saving: boolean;
  error: unknown;
  onSave: (settings: WebhookSettings | Omit<WebhookSettings, 'secret'>) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const [url, setUrl] = useState(hook?.url ?? '');
  const [secret, setSecret] = useState(() => (hook ? '' : randomSecret()));
  const [events, setEvents] = useState<Set<EventName>>(new Set(hook?.events ?? ['upload.completed', 'gate.failed']));
  const [minSeverity, setMinSeverity] = useState<Webhook['min_severity']>(hook?.min_severity ?? 'high');
  const [format, setFormat] = useState<Webhook['format']>(hook?.format ?? 'json');
  const [active, setActive] = useState(hook?.active ?? true);

  const toggle = (event: EventName) => setEvents(toggled(events, event));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const settings = { url: url.trim(), events: EVENTS.filter((ev) => events.has(ev)), min_severity: minSeverity, format, active };
    onSave(secret ? { ...settings, secret } : settings);
  };

  return (
    <form className="card form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} className="card-title">{hook ? 'Edit webhook' : 'New webhook'}</h3>
      <div className="form-grid">
        <TextField id={`${id}-url`} label="Payload URL" type="url" required value={url} onChange={setUrl} placeholder="https://hooks.example.com/scanyard" />
        <TextField
          id={`${id}-secret`} label={<>Secret {hook && <span className="muted">(empty: keep the current one)</span>}</>}
          className="input mono" required={!hook} minLength={8} maxLength={256} value={secret} onChange={setSecret} autoComplete="off"
        />
        <SelectField id={`${id}-format`} label="Format" value={format} onChange={setFormat} options={FORMATS.map((f) => ({ value: f, label: FORMAT_LABEL[f] }))} />
        <SelectField
          id={`${id}-severity`} label="Minimum severity of findings" value={minSeverity} onChange={setMinSeverity}
          options={SEVERITIES.map((s) => ({ value: s, label: SEVERITY_LABEL[s] }))}
        />
      </div>
      <fieldset className="fieldset">
        <legend>Events</legend>
        <CheckGrid items={EVENTS} checked={events} onToggle={toggle}>
          {(ev) => <span><code>{ev}</code> <span className="muted">{EVENT_LABEL[ev]}</span></span>}
        </CheckGrid>
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
        Active: deliver events to this URL
      </label>
      {error != null && <ProblemNotice error={error} lead="The webhook was not saved." />}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={saving || events.size === 0 || !url.trim()}>{saving ? 'Saving…' : hook ? 'Save webhook' : 'Create webhook'}</button>
        <button type="button" className="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
