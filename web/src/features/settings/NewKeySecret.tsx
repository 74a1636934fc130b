import { useEffect, useRef } from 'react';
import type { CreatedApiKey } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';

/** The secret of a key just created: shown this once, to copy now. */
export function NewKeySecret({ apiKey, onDone }: { apiKey: CreatedApiKey; onDone: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div className="notice notice-success secret" role="region" aria-labelledby="secret-title" tabIndex={-1} ref={ref}>
      <h3 id="secret-title" className="card-title">Copy the key “{apiKey.name}” now</h3>
      <p>This is the only time Scanyard shows it. Store it in your CI secrets; if it is lost, revoke it and create another.</p>
      <div className="secret-row">
        <code className="secret-value" data-testid="new-api-key">{apiKey.key}</code>
        <CopyButton text={apiKey.key} label="Copy key" />
      </div>
      <button type="button" className="button button-small" onClick={onDone}>I have stored it</button>
    </div>
  );
}
