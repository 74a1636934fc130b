/**
 * FIRST's daily EPSS scores (epss_scores-YYYY-MM-DD.csv): a comment line
 * `#model_version:...,score_date:...`, the header `cve,epss,percentile`, then one row per CVE. Pure.
 */
export interface EpssScore {
  cve: string;
  probability: number;
  percentile: number;
}

export interface EpssScores {
  /** The comment line's fields (model_version, score_date), when it has them. */
  model_version: string | null;
  score_date: string | null;
  scores: EpssScore[];
  rejected: { line: number; reason: string }[];
}

const CVE = /^CVE-\d{4}-\d{4,}$/;

/** The CSV's first line, the comment or the header, tells it from JSON and zips. */
export function isEpssCsv(head: string): boolean {
  const first = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0]!.trim();
  return first.startsWith('#model_version:') || /^cve,epss,percentile$/i.test(first);
}

export function parseEpss(text: string): EpssScores {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let model_version: string | null = null;
  let score_date: string | null = null;
  // A CVE listed twice keeps its last row.
  const scores = new Map<string, EpssScore>();
  const rejected: EpssScores['rejected'] = [];
  let columns: { cve: number; epss: number; percentile: number } | null = null;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    if (line.startsWith('#')) {
      for (const field of line.slice(1).split(',')) {
        const [key, value] = field.split(/:(.*)/s);
        if (key === 'model_version') model_version = value ?? null;
        if (key === 'score_date') score_date = value ?? null;
      }
      return;
    }
    const cells = line.split(',').map((c) => c.trim());
    if (!columns) {
      const names = cells.map((c) => c.toLowerCase());
      columns = { cve: names.indexOf('cve'), epss: names.indexOf('epss'), percentile: names.indexOf('percentile') };
      if (columns.cve < 0 || columns.epss < 0 || columns.percentile < 0) throw new EpssError('the header must name cve, epss and percentile');
      return;
    }
    const cve = (cells[columns.cve] ?? '').toUpperCase();
    const probability = Number(cells[columns.epss]);
    const percentile = Number(cells[columns.percentile]);
    if (!CVE.test(cve)) rejected.push({ line: i + 1, reason: 'cve is not a CVE id' });
    else if (!inUnit(probability) || !inUnit(percentile)) rejected.push({ line: i + 1, reason: 'epss and percentile must be numbers from 0 to 1' });
    else scores.set(cve, { cve, probability, percentile });
  });
  if (!columns) throw new EpssError('there is no header line cve,epss,percentile');
  return { model_version, score_date, scores: [...scores.values()], rejected };
}

export class EpssError extends Error {
  override readonly name = 'EpssError';
}

function inUnit(n: number): boolean {
  return Number.isFinite(n) && n >= 0 && n <= 1;
}
