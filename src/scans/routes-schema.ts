import { Type } from 'typebox';

const Text = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));

/** Context of an upload, as query parameters or multipart fields. */
export const UploadQuery = Type.Object({
  format: Type.Optional(Type.Enum(['sarif', 'cyclonedx', 'spdx', 'findings'], { description: 'Name the format instead of detecting it.' })),
  category: Text(200, 'Separates analyses of the same tool (e.g. a language or a sub-project), as in GitHub code scanning.'),
  commit_sha: Text(64, 'The commit that was scanned.'),
  ref: Text(300, 'The branch or tag that was scanned.'),
});
