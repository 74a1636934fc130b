/**
 * The p-th percentile (0-100) of values by linear interpolation between closest ranks (the method
 * numpy and Excel's PERCENTILE.INC use): rank (n - 1) * p / 100. Null for no values. Pure.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = ((sorted.length - 1) * p) / 100;
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** Rounded for reading: days to three decimals (under two minutes). */
export function roundDays(days: number | null): number | null {
  return days === null ? null : Math.round(days * 1000) / 1000;
}
