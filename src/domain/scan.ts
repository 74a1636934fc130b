/**
 * The normalised shape every parser produces. Parsers are pure: bytes in, this out,
 * no database in sight. Ingest turns it into findings, components and status.
 */
export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
export const SEVERITIES: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

/** The families an upload is stored as, and what ?format= may name. */
export type ScanFormat = 'sarif' | 'cyclonedx' | 'spdx' | 'findings' | 'vex';
export const SCAN_FORMATS: readonly ScanFormat[] = ['sarif', 'cyclonedx', 'spdx', 'findings', 'vex'];

export interface NormalisedFinding {
  /** Rule or advisory id (SARIF ruleId, CVE/GHSA id, semgrep check_id). Never empty. */
  ruleId: string;
  /** Human title of the rule when the format has one. */
  ruleName: string | null;
  message: string;
  severity: Severity;
  /** The tool's own level or severity word, as it was written (SARIF level, "HIGH", ...). */
  level: string | null;
  /** SARIF result kind ("fail", "open", ...) when given. */
  kind: string | null;
  filePath: string | null;
  startLine: number | null;
  endLine: number | null;
  /**
   * A stable identity the tool itself provides (SARIF partialFingerprints or fingerprints,
   * Semgrep's extra.fingerprint, package@version for dependency advisories). Ingest combines it
   * with ruleId and filePath; when null, ingest falls back to the normalised message.
   */
  fingerprint: string | null;
  /** For dependency findings: the affected package. */
  packageName: string | null;
  packageVersion: string | null;
  purl: string | null;
  securitySeverity: number | null;
  helpUri: string | null;
  /** The commit the report names for this finding (Gitleaks: where the secret was committed). */
  commitSha: string | null;
  /** A vulnerability's other ids (CVE, GHSA, ...), for findings matched from advisories. */
  aliases?: string[];
  /** The nearest fixed versions above the installed one, for findings matched from advisories. */
  fixedVersions?: string[];
  /** The rule's help (SARIF rule.help, else fullDescription), markdown kept as markdown. */
  help: string | null;
  /** Every location, when the tool gave more than one (the first is filePath and the lines). */
  locations: FindingLocation[] | null;
  /** The code at the location, when the report carries it (SARIF region.snippet). */
  snippet: string | null;
  /**
   * The tool's own suppression (SARIF `suppressions` of kind inSource or external whose status is
   * absent or accepted): its justification, '' when it gives none; null when not suppressed.
   */
  suppression: string | null;
}

export interface FindingLocation {
  path: string | null;
  startLine: number | null;
  endLine: number | null;
}

export interface NormalisedComponent {
  /** bom-ref (CycloneDX) or SPDXID (SPDX): what the dependency graph refers to. */
  ref: string | null;
  name: string;
  version: string | null;
  purl: string | null;
  /** CycloneDX component type ("library", "application", ...) or SPDX primaryPackagePurpose. */
  type: string | null;
  licenses: string[];
  hashes: { alg: string; value: string }[];
}

export interface NormalisedDependency {
  ref: string;
  dependsOn: string[];
}

/** One tool's output in one upload. A SARIF with several runs of one tool gives one analysis. */
export interface NormalisedAnalysis {
  tool: { name: string; version: string | null };
  findings: NormalisedFinding[];
  components: NormalisedComponent[];
  dependencies: NormalisedDependency[];
  /**
   * What the SBOM describes (CycloneDX metadata.component's bom-ref, SPDX DESCRIBES targets): where
   * the dependency graph starts. Absent or empty: the document states no root, so no component can
   * be called direct.
   */
  roots?: string[];
}

export interface NormalisedScan {
  format: ScanFormat;
  analyses: NormalisedAnalysis[];
  /** What a VEX (OpenVEX, or a CycloneDX BOM's vulnerabilities[].analysis) states; absent in other formats. */
  statements?: VexStatement[];
}

/**
 * One VEX statement about one vulnerability in one product, in the product's own words: OpenVEX
 * statuses as they are; CycloneDX analysis states mapped to them (false_positive kept apart, since
 * it dismisses with its own reason).
 */
export interface VexStatement {
  vulnerability: string;
  aliases: string[];
  /** A purl (with a version: that version only), or a bom-ref the repository's SBOMs may name. */
  product: { purl: string } | { ref: string };
  status: 'not_affected' | 'false_positive' | 'affected' | 'under_investigation' | 'fixed';
  justification: string | null;
  /** OpenVEX impact_statement or action_statement, CycloneDX analysis.detail. */
  detail: string | null;
}
