import { Type, type Static } from 'typebox';
import { Nullable, Time } from '../http/schemas.js';

export const AnalysisParams = Type.Object({ id: Type.String(), analysis_id: Type.String() });

export const AnalysisSchema = Type.Object({
  id: Type.String(),
  repository_id: Type.String(),
  ref: Type.String({ description: 'The branch, tag or pull request (pr/N) it belongs to.' }),
  ref_kind: Type.Enum(['branch', 'tag', 'pull_request']),
  tool: Type.String(),
  tool_version: Nullable(Type.String()),
  category: Type.String({ description: 'Separates analyses of the same tool, as in GitHub code scanning.' }),
  format: Type.String({ description: 'sarif, cyclonedx, spdx or findings.' }),
  last_upload_id: Type.String({ description: 'The upload whose results it holds now.' }),
  completed_at: Time,
  findings: Type.Object({
    open: Type.Integer(), critical: Type.Integer(), high: Type.Integer(), medium: Type.Integer(), low: Type.Integer(), info: Type.Integer(),
    fixed: Type.Integer(),
  }),
  components: Type.Integer(),
}, { title: 'Analysis', description: 'The results of one tool (with a category and a format) in a repository: each upload replaces its open set.' });
export type AnalysisJson = Static<typeof AnalysisSchema>;
