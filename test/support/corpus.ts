import path from 'node:path';
import type { ScanFormat } from '../../src/domain/scan.js';
import type { Syntax } from '../../src/scans/parsers/types.js';

export const CORPUS = path.resolve(import.meta.dirname, '../fixtures/corpus');

export interface Expected {
  format: ScanFormat;
  syntax: Syntax;
  /** One entry per analysis. */
  tools: string[];
  findings: number;
  /** Results the tool repeats word for word (same rule, place, lines and message): stored once, with a count. */
  repeats?: number;
  components: number;
  dependencies: number;
}

/**
 * Every corpus file, with what it must give. The counts come from reading the files with jq
 * (results of kind fail/open/review, components including nested ones, one finding per
 * vulnerability per affected ref, SPDX packages), not from this parser's output.
 */
export const EXPECTED: Record<string, Expected> = {
  'sarif/codeql-2.2.4-js-xss.sarif': {
    format: 'sarif', syntax: 'json', tools: ['CodeQL command-line toolchain'], findings: 2, components: 0, dependencies: 0,
  },
  'sarif/dependency-check-7.1.0.sarif': {
    format: 'sarif', syntax: 'json', tools: ['dependency-check'], findings: 1, components: 0, dependencies: 0,
  },
  'sarif/gitleaks-7.4.0.sarif': {
    format: 'sarif', syntax: 'json', tools: ['Gitleaks'], findings: 8, components: 0, dependencies: 0,
  },
  'sarif/kics-github-actions.sarif': {
    format: 'sarif', syntax: 'json', tools: ['KICS'], findings: 2, repeats: 1, components: 0, dependencies: 0,
  },
  'sarif/semgrep-1.66.2-no-results.sarif': {
    format: 'sarif', syntax: 'json', tools: ['Semgrep'], findings: 0, components: 0, dependencies: 0,
  },
  'sarif/semgrep-dataflow-traces.sarif': {
    format: 'sarif', syntax: 'json', tools: ['Semgrep'], findings: 1, components: 0, dependencies: 0,
  },
  'sarif/snyk-open-source-all-projects.sarif': {
    format: 'sarif', syntax: 'json', tools: ['Snyk Open Source'], findings: 6, components: 0, dependencies: 0,
  },
  'sarif/trivy-image-alpine-310.sarif': {
    format: 'sarif', syntax: 'json', tools: ['Trivy'], findings: 8, components: 0, dependencies: 0,
  },
  'cyclonedx/cyclonedx-npm-bundled-deps-1.6.cdx.xml': {
    format: 'cyclonedx', syntax: 'xml', tools: ['cyclonedx-npm'], findings: 0, components: 51, dependencies: 52,
  },
  'cyclonedx/cyclonedx-py-requirements-hashes-1.2.cdx.json': {
    format: 'cyclonedx', syntax: 'json', tools: ['cyclonedx-bom'], findings: 0, components: 5, dependencies: 6,
  },
  'cyclonedx/cyclonedx-py-requirements-hashes-1.3.cdx.xml': {
    format: 'cyclonedx', syntax: 'xml', tools: ['cyclonedx-bom'], findings: 0, components: 5, dependencies: 6,
  },
  'cyclonedx/cyclonedx-py-requirements-local-1.5.cdx.json': {
    format: 'cyclonedx', syntax: 'json', tools: ['cyclonedx-py'], findings: 0, components: 6, dependencies: 7,
  },
  'cyclonedx/grype-0.41.0-log4j-1.4.cdx.xml': {
    format: 'cyclonedx', syntax: 'xml', tools: ['Grype'], findings: 8, components: 1, dependencies: 0,
  },
  'cyclonedx/trivy-conda-1.4.cdx.json': {
    format: 'cyclonedx', syntax: 'json', tools: ['Trivy'], findings: 0, components: 4, dependencies: 3,
  },
  'cyclonedx/trivy-conda-1.6.cdx.json': {
    format: 'cyclonedx', syntax: 'json', tools: ['Trivy'], findings: 0, components: 2, dependencies: 3,
  },
  'cyclonedx/trivy-image-fluentd-vulns-1.6.cdx.json': {
    format: 'cyclonedx', syntax: 'json', tools: ['Trivy'], findings: 3, components: 4, dependencies: 5,
  },
  'spdx/freertos-coreJSON-3.3.0-2.2.spdx': {
    format: 'spdx', syntax: 'tag-value', tools: ['SPDX'], findings: 0, components: 1, dependencies: 0,
  },
  // In SPDX the package the document DESCRIBES is the SBOM's subject, not one of its components.
  'spdx/spdx-spec-example-2.3.spdx': {
    format: 'spdx', syntax: 'tag-value', tools: ['LicenseFind'], findings: 0, components: 3, dependencies: 0,
  },
  'spdx/trivy-conda-2.2.spdx.json': {
    format: 'spdx', syntax: 'json', tools: ['Trivy'], findings: 0, components: 3, dependencies: 2,
  },
  'spdx/trivy-conda-environment-2.3.spdx.json': {
    format: 'spdx', syntax: 'json', tools: ['Trivy'], findings: 0, components: 2, dependencies: 2,
  },
  'findings/npm-audit-v2-npm7-low.json': {
    format: 'findings', syntax: 'json', tools: ['npm audit'], findings: 1, components: 0, dependencies: 0,
  },
  'findings/osv-scanner-malicious-npm.json': {
    format: 'findings', syntax: 'json', tools: ['OSV-Scanner'], findings: 1, components: 0, dependencies: 0,
  },
  'findings/semgrep-1.30.0.json': {
    format: 'findings', syntax: 'json', tools: ['Semgrep'], findings: 5, components: 0, dependencies: 0,
  },
  'findings/trivy-image-alpine-39-high-critical.json': {
    format: 'findings', syntax: 'json', tools: ['Trivy'], findings: 2, components: 0, dependencies: 0,
  },
};
