import { ApiError, messageOf } from '../api/client';

/** Why the server refused a form: its words, or each field it named (`/max_open/critical must be >= 0`). */
export function ProblemNotice({ error, lead }: { error: unknown; lead?: string }) {
  const fields = error instanceof ApiError ? error.problem?.errors ?? [] : [];
  return (
    <div className="notice notice-error" role="alert">
      {lead && <strong>{lead} </strong>}
      {/* The detail repeats the fields in one line; the list says it once, readably. */}
      {fields.length === 0 ? messageOf(error) : 'Check these fields:'}
      {fields.length > 0 && (
        <ul className="problem-fields">
          {fields.map((f) => <li key={`${f.path}|${f.message}`}><code>{f.path || '/'}</code> {f.message}</li>)}
        </ul>
      )}
    </div>
  );
}
