/** An error in the shape RFC 7644 3.12 gives (status, detail, scimType): the routes write it as SCIM JSON. */
export class ScimError extends Error {
  override readonly name = 'ScimError';
  constructor(readonly status: number, readonly detail: string, readonly scimType?: string) {
    super(detail);
  }
}
