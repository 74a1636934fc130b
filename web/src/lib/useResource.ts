import { useCallback, useEffect, useRef, useState } from 'react';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  /** True while a load runs; the previous data stays visible meanwhile (no flicker on paging). */
  loading: boolean;
  reload: () => void;
}

/**
 * Loads data for a component and reloads it when `key` changes. A load that is overtaken by a
 * newer one is aborted and its answer ignored, so fast typing in a filter never shows stale rows.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, key: string): Resource<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean; key: string }>({ loading: true, key });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, key }));
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, loading: false, key });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ data: s.key === key ? s.data : undefined, error, loading: false, key }));
      },
    );
    return () => controller.abort();
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Calls `tick` every `ms` while `active`; for screens that wait on a processing upload. */
export function useInterval(tick: () => void, ms: number, active: boolean): void {
  const tickRef = useRef(tick);
  tickRef.current = tick;
  useEffect(() => {
    if (!active) return;
    const id = window.setInterval(() => tickRef.current(), ms);
    return () => window.clearInterval(id);
  }, [ms, active]);
}
