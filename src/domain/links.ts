import type { NormalisedScan } from './scan.js';

/**
 * A link from a scan file, kept only when it is an absolute http(s) URL. Anyone who can upload
 * writes these, and the web UI turns them into anchors: a javascript: or data: "help URI" would
 * run in the page of whoever clicks it.
 */
export function httpLink(value: string | null): string | null {
  if (value === null) return null;
  const link = value.trim();
  try {
    const { protocol } = new URL(link);
    return protocol === 'http:' || protocol === 'https:' ? link : null;
  } catch {
    return null;
  }
}

/** Drops every link of a parsed scan that is not http(s), whichever parser produced it. */
export function onlyHttpLinks(scan: NormalisedScan): NormalisedScan {
  // Results of one rule share its link: checked once each, not once per finding.
  const checked = new Map<string, string | null>();
  for (const analysis of scan.analyses) {
    for (const finding of analysis.findings) {
      const link = finding.helpUri;
      if (link === null) continue;
      let kept = checked.get(link);
      if (kept === undefined) {
        kept = httpLink(link);
        checked.set(link, kept);
      }
      finding.helpUri = kept;
    }
  }
  return scan;
}
