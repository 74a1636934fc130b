import { useEffect, useState } from 'react';

/** Copies `text` to the clipboard and says so (to screen readers too). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const id = window.setTimeout(() => setState('idle'), 2000);
    return () => window.clearTimeout(id);
  }, [state]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" className="button button-small" onClick={() => void copy()}>
        {state === 'copied' ? 'Copied' : label}
      </button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Copying failed; select the text and copy it' : ''}
      </span>
    </>
  );
}
