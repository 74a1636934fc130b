import type { ScanState } from '../api/types';

export const SCAN_STATE_LABEL: Record<ScanState, string> = {
  never_scanned: 'Never scanned',
  pending: 'Pending',
  processing: 'Processing',
  complete: 'Complete',
  failed: 'Failed',
};

export const isInProgress = (state: string): boolean => state === 'pending' || state === 'processing';
