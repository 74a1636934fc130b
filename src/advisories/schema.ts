import { Type, type Static } from 'typebox';

export const ImportReportSchema = Type.Object({
  added: Type.Integer(),
  updated: Type.Integer({ description: 'Records whose `modified` is newer than the stored one.' }),
  withdrawn: Type.Integer({ description: 'Records newly marked withdrawn: they match nothing any more.' }),
  unchanged: Type.Integer({ description: 'Records not newer than the stored one.' }),
  rejected: Type.Array(Type.Object({ file: Type.String(), reason: Type.String() }), { description: 'Records or files refused, each with why; the rest were imported.' }),
  rematch_queued: Type.Integer({ description: 'Repository refs queued to be matched again because advisories of their packages changed.' }),
}, { title: 'AdvisoryImportReport' });
export type ImportReportJson = Static<typeof ImportReportSchema>;
