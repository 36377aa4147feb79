// Schemas shared by several resources: envelope pieces, paging, ids.
import { Type, type TSchema } from '@sinclair/typebox';

export const Timestamp = Type.String({ format: 'date-time' });

export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: undefined })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  sort: Type.Optional(Type.String({ maxLength: 200 })),
  tz: Type.Optional(Type.String({ maxLength: 64 })),
};

export const PageMeta = Type.Object({
  page: Type.Integer(), page_size: Type.Integer(), total: Type.Integer(), total_pages: Type.Integer(),
  next_cursor: Type.Optional(Type.Union([Type.String(), Type.Null()])),
}, { additionalProperties: true });

export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String(), message: Type.String(), details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    trace_id: Type.String(), doc_url: Type.Optional(Type.String()),
  }),
  request_id: Type.String(),
});

export function envelope<T extends TSchema>(data: T, meta?: TSchema) {
  return Type.Object({
    data,
    ...(meta ? { meta } : { meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
    request_id: Type.String(),
    timestamp: Timestamp,
  });
}

export const errorResponses = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorBody]));

export const IdParams = (prefix: string) => Type.Object({ id: Type.String({ pattern: `^${prefix}_[A-Za-z0-9]+$`, description: `id with prefix ${prefix}_` }) });

export const BatchResult = Type.Object({
  succeeded: Type.Array(Type.Object({ index: Type.Integer(), id: Type.String() })),
  failed: Type.Array(
    Type.Object({
      index: Type.Integer(),
      error: Type.Object({
        code: Type.String(),
        message: Type.String(),
        details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      }),
    }),
  ),
});
