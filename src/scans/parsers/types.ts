import type { NormalisedScan, ScanFormat } from '../../domain/scan.js';
import type { Sniffed } from './sniff.js';

/** How each family is named in messages: "…, but SARIF must be JSON", "The SARIF log is not valid JSON". */
export const FAMILIES: Record<ScanFormat, { name: string; versions: string; document: string }> = {
  sarif: { name: 'SARIF', versions: 'SARIF 2.1.0', document: 'SARIF log' },
  cyclonedx: { name: 'CycloneDX', versions: 'CycloneDX 1.2–1.6', document: 'CycloneDX BOM' },
  spdx: { name: 'SPDX', versions: 'SPDX 2.2/2.3', document: 'SPDX document' },
  findings: { name: 'a findings report', versions: 'findings', document: 'findings report' },
  vex: { name: 'OpenVEX', versions: 'OpenVEX 0.2', document: 'OpenVEX document' },
};

export type Syntax = 'json' | 'xml' | 'tag-value';

/**
 * One format a parser reads: what each parser module exports, and all that the registry
 * (parsers/index.ts) knows of it.
 */
export interface FormatParser {
  /** How messages and the API documentation name it: "Trivy", "CycloneDX XML". */
  title: string;
  /** The family the upload is stored as. */
  format: ScanFormat;
  syntax: Syntax;
  /** Media types that name this format outright (generic ones such as application/json never do). */
  contentTypes: readonly string[];
  /** Whether an upload is in this format, from its raw bytes: cheap, since it runs inside the request. */
  recognises(document: Sniffed): boolean;
  /** Throws ParseError, with a message meant for the uploader. */
  parse(body: Buffer): NormalisedScan;
}

/** A parse that cannot go on; `message` is shown to the user on the failed upload. */
export class ParseError extends Error {
  override readonly name = 'ParseError';
}
