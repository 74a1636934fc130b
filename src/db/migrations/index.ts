import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './0001_initial.js';
import * as findingKind from './0002_finding_kind.js';
import * as findingsPageIndex from './0003_findings_page_index.js';
import * as adminPins from './0004_admin_pins.js';
import * as findingChanges from './0005_finding_changes.js';
import * as refs from './0006_refs.js';
import * as gates from './0008_gates.js';
import * as webhooks from './0009_webhooks.js';
import * as findingCommitOccurrences from './0012_finding_commit_occurrences.js';
import * as advisories from './0013_advisories.js';
import * as triage from './0014_triage.js';
import * as partialChangeIndexes from './0015_partial_change_indexes.js';
import * as vulnerabilityPriorities from './0016_vulnerability_priorities.js';
import * as vexStatements from './0017_vex_statements.js';
import * as vulnerabilities from './0018_vulnerabilities.js';
import * as advisoryReferences from './0019_advisory_references.js';
import * as findingsRepositoryCheck from './0020_findings_repository_check.js';
import * as uploadContentsEncoding from './0021_upload_contents_encoding.js';
import * as analysisRowsCascade from './0022_analysis_rows_cascade.js';
import * as findingsFillfactor from './0023_findings_fillfactor.js';
import * as lookupIndexes from './0024_lookup_indexes.js';
import * as refAnalyses from './0025_ref_analyses.js';
import * as auditActorIndexes from './0026_audit_actor_indexes.js';
import * as advisoryListIndexes from './0027_advisory_list_indexes.js';
import * as refComponentsUnchecked from './0028_ref_components_unchecked.js';
import * as uploadIntroduced from './0029_upload_introduced.js';
import * as teamRepositories from './0030_team_repositories.js';
import * as ciIdentity from './0031_ci_identity.js';
import * as componentGraph from './0032_component_graph.js';
import * as forgeLinks from './0033_forge_links.js';
import * as metrics from './0034_metrics.js';
import * as forgeVerdicts from './0035_forge_verdicts.js';
import * as enterpriseIdentity from './0036_enterprise_identity.js';
import * as uploadContentsBlob from './0037_upload_contents_blob.js';
import * as scimGroups from './0038_scim_groups.js';
import * as findingAgeIndexes from './0039_finding_age_indexes.js';
import * as saml from './0040_saml.js';
import * as blobDeletions from './0041_blob_deletions.js';
import * as samlBinding from './0042_saml_binding.js';

/** Migrations are imported, not read from disk, so the built package needs no file globbing. */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_finding_kind': findingKind,
  '0003_findings_page_index': findingsPageIndex,
  '0004_admin_pins': adminPins,
  '0005_finding_changes': findingChanges,
  '0006_refs': refs,
  '0008_gates': gates,
  '0009_webhooks': webhooks,
  '0012_finding_commit_occurrences': findingCommitOccurrences,
  '0013_advisories': advisories,
  '0014_triage': triage,
  '0015_partial_change_indexes': partialChangeIndexes,
  '0016_vulnerability_priorities': vulnerabilityPriorities,
  '0017_vex_statements': vexStatements,
  '0018_vulnerabilities': vulnerabilities,
  '0019_advisory_references': advisoryReferences,
  '0020_findings_repository_check': findingsRepositoryCheck,
  '0021_upload_contents_encoding': uploadContentsEncoding,
  '0022_analysis_rows_cascade': analysisRowsCascade,
  '0023_findings_fillfactor': findingsFillfactor,
  '0024_lookup_indexes': lookupIndexes,
  '0025_ref_analyses': refAnalyses,
  '0026_audit_actor_indexes': auditActorIndexes,
  '0027_advisory_list_indexes': advisoryListIndexes,
  '0028_ref_components_unchecked': refComponentsUnchecked,
  '0029_upload_introduced': uploadIntroduced,
  '0030_team_repositories': teamRepositories,
  '0031_ci_identity': ciIdentity,
  '0032_component_graph': componentGraph,
  '0033_forge_links': forgeLinks,
  '0034_metrics': metrics,
  '0035_forge_verdicts': forgeVerdicts,
  '0036_enterprise_identity': enterpriseIdentity,
  '0037_upload_contents_blob': uploadContentsBlob,
  '0038_scim_groups': scimGroups,
  '0039_finding_age_indexes': findingAgeIndexes,
  '0040_saml': saml,
  '0041_blob_deletions': blobDeletions,
  '0042_saml_binding': samlBinding,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};

export const latestMigration = Object.keys(migrations).sort().at(-1)!;
