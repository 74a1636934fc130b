import type { CreatedApiKey } from '../../api/types';
import { SecretOnce } from '../../components/SecretOnce';

/** The secret of a key just created: shown this once, to copy now. */
export function NewKeySecret({ apiKey, onDone }: { apiKey: CreatedApiKey; onDone: () => void }) {
  return (
    <SecretOnce title={`Copy the key “${apiKey.name}” now`} value={apiKey.key} copyLabel="Copy key" testId="new-api-key" onDone={onDone}>
      <p>This is the only time Scanyard shows it. Store it in your CI secrets; if it is lost, revoke it and create another.</p>
    </SecretOnce>
  );
}
