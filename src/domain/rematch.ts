/**
 * The format of a re-match job: an advisory import that added, changed or withdrew advisories of a
 * ref's packages queues one, and the ingest workers apply it as they apply uploads (with the same
 * claims and leases). It shares the uploads queue table for that, but is no upload: nobody sent it,
 * the upload list leaves it out, and a finding it opened says which advisory matched.
 */
export const REMATCH_FORMAT = 'advisories';
