import type { ScanState, ScanStatus } from '../api/types';

export const SCAN_STATE_LABEL: Record<ScanState, string> = {
  never_scanned: 'Never scanned',
  pending: 'Pending',
  processing: 'Processing',
  complete: 'Complete',
  failed: 'Failed',
};

export const isInProgress = (state: string): boolean => state === 'pending' || state === 'processing';

const SBOM_FORMATS = new Set(['cyclonedx', 'spdx']);

/**
 * Nothing open because little was looked for: every analysis is an SBOM (its components matched
 * no advisory loaded, which says as much about the advisory database as about them) and no scanner
 * looked at its code. Such a repository is an inventory, not clean.
 */
export const isInventoryOnly = (status: ScanStatus): boolean =>
  status.findings.open === 0 && status.analyses.length > 0 && status.analyses.every((a) => SBOM_FORMATS.has(a.format));
