import { useState } from 'react';
import { messageOf } from '../api/client';

/**
 * A form's submit: busy from the click on (and, after success, while the screen moves on, so it
 * cannot be sent twice), and on failure the server's words for it with the form usable again.
 */
export function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(messageOf(caught));
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
