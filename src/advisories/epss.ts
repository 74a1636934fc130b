/**
 * FIRST's daily EPSS scores (epss_scores-YYYY-MM-DD.csv): a comment line
 * `#model_version:...,score_date:...`, the header `cve,epss,percentile`, then one row per CVE. Pure:
 * read a line at a time, so a file of any length costs the memory of one line.
 */
export interface EpssScore {
  cve: string;
  probability: number;
  percentile: number;
}

/** A CVE id, its number bounded: the id is an indexed key, which PostgreSQL refuses past 2,704 bytes. */
export const CVE = /^CVE-\d{4}-\d{4,19}$/;

/** The CSV's first line, the comment or the header, tells it from JSON and zips. */
export function isEpssCsv(head: string): boolean {
  const first = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0]!.trim();
  return first.startsWith('#model_version:') || /^cve,epss,percentile$/i.test(first);
}

/** The file's lines in order, each read into a score, a rejection's reason, or nothing (comments, the header, blank lines). */
export class EpssReader {
  /** The number of the line last read, from 1. */
  lineNumber = 0;
  private columns: { cve: number; epss: number; percentile: number } | null = null;

  line(raw: string): EpssScore | { reason: string } | null {
    this.lineNumber++;
    const line = (this.lineNumber === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
    if (line === '') return null;
    if (line.startsWith('#')) return null;
    const cells = line.split(',').map((c) => c.trim());
    if (!this.columns) {
      const names = cells.map((c) => c.toLowerCase());
      this.columns = { cve: names.indexOf('cve'), epss: names.indexOf('epss'), percentile: names.indexOf('percentile') };
      if (this.columns.cve < 0 || this.columns.epss < 0 || this.columns.percentile < 0) throw new EpssError('the header must name cve, epss and percentile');
      return null;
    }
    const cve = (cells[this.columns.cve] ?? '').toUpperCase();
    const probability = Number(cells[this.columns.epss]);
    const percentile = Number(cells[this.columns.percentile]);
    if (!CVE.test(cve)) return { reason: 'cve is not a CVE id' };
    if (!inUnit(probability) || !inUnit(percentile)) return { reason: 'epss and percentile must be numbers from 0 to 1' };
    return { cve, probability, percentile };
  }

  /** After the last line: a file without a header is no EPSS file. */
  end(): void {
    if (!this.columns) throw new EpssError('there is no header line cve,epss,percentile');
  }
}

export class EpssError extends Error {
  override readonly name = 'EpssError';
}

function inUnit(n: number): boolean {
  return Number.isFinite(n) && n >= 0 && n <= 1;
}
