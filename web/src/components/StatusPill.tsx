import type { ScanState } from '../api/types';
import { SCAN_STATE_LABEL } from '../lib/scan-state';

export function StatusPill({ state }: { state: ScanState }) {
  return (
    <span className={`status status-${state}`}>
      <span className="status-dot" aria-hidden="true" />
      {SCAN_STATE_LABEL[state]}
    </span>
  );
}
