import { Type, type TSchema } from 'typebox';

/** Building blocks the resources' schema.ts files share. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Time = Type.String({ format: 'date-time' });
export const IdParams = Type.Object({ id: Type.String() });
export const OrgIdParams = Type.Object({ org_id: Type.String() });
