import type { Upload } from '../../api/types';
import type { TrendPoint } from '../../components/TrendChart';

/**
 * Open findings of the repository after each completed upload. An upload replaces the open set of
 * its analysis (tool and category), so the repository's total is the sum over analyses of what
 * each one's latest upload left open: new + reopened + unchanged.
 */
export function openFindingsTrend(uploads: Upload[]): TrendPoint[] {
  const oldestFirst = [...uploads].sort((a, b) => a.created_at.localeCompare(b.created_at));
  const openByAnalysis = new Map<string, number>();
  const points: TrendPoint[] = [];
  for (const upload of oldestFirst) {
    if (upload.status !== 'complete') continue;
    const analysis = `${[...upload.tools].sort().join(',')}|${upload.category}`;
    openByAnalysis.set(analysis, upload.counts.new + upload.counts.reopened + upload.counts.unchanged);
    let open = 0;
    for (const n of openByAnalysis.values()) open += n;
    points.push({ at: upload.completed_at ?? upload.created_at, open });
  }
  return points;
}
