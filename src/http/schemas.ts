import { Type, type TSchema } from 'typebox';

/** Building blocks the resources' schema.ts files share. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Time = Type.String({ format: 'date-time' });
/** Whatever people create and edit says when it was made and when it last changed. */
export const Timestamps = { created_at: Time, updated_at: Time };
/** Another resource named where it is mentioned: enough to show it and link to it. */
export const NamedRef = Type.Object({ id: Type.String(), name: Type.String() });
export const IdParams = Type.Object({ id: Type.String() });
export const OrgIdParams = Type.Object({ org_id: Type.String() });
