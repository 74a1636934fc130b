import { STATUS_CODES } from 'node:http';
import { Type } from 'typebox';
import type { FieldError } from '../problem.js';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: FieldError[];
  reason?: string;
}

export function problemBody(status: number, detail: string, errors?: FieldError[], reason?: string): ProblemBody {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    ...(errors ? { errors } : {}),
    ...(reason ? { reason } : {}),
  };
}

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'A URI reference that identifies the problem type; "about:blank" for plain HTTP statuses.' }),
    title: Type.String({ description: 'The HTTP status phrase.' }),
    status: Type.Integer({ description: 'The HTTP status code.' }),
    detail: Type.String({ description: 'What went wrong, in words meant for the user.' }),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer of the offending field, e.g. /name or /query/per_page.' }),
          message: Type.String(),
        }),
        { description: 'One entry per invalid field (validation failures only).' },
      ),
    ),
    reason: Type.Optional(Type.String({ description: 'A refused CI token exchange (POST /auth/ci/token): issuer, signature, algorithm, expired, not_yet_valid, audience, replayed or no_rule.' })),
  },
  { $id: 'Problem', title: 'Problem', description: 'RFC 9457 problem details.' },
);
