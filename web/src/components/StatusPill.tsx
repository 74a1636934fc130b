import type { ScanState } from '../api/types';
import { SCAN_STATE_LABEL } from '../lib/scan-state';
import { Pill } from './Pill';

export function StatusPill({ state }: { state: ScanState }) {
  return <Pill className={`status status-${state}`}>{SCAN_STATE_LABEL[state]}</Pill>;
}
