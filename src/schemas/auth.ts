import { Type } from '@sinclair/typebox';

export const TokenIn = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 128 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
  tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "default: the user's own tenant" })),
  scope: Type.Optional(Type.String({ maxLength: 200, description: '"default" (every permission of the role) or permission names narrowing the token' })),
}, { additionalProperties: false });

export const RefreshIn = Type.Object({
  refresh_token: Type.String({ minLength: 1, maxLength: 512 }),
}, { additionalProperties: false });

export const LogoutQuery = Type.Object({
  all_sessions: Type.Optional(Type.Boolean({ default: false, description: 'end every session of the user, not only the one of this token' })),
}, { additionalProperties: false });
export const LogoutOut = Type.Object({ sessions: Type.Integer({ description: 'sessions ended' }) });

export const TokenOut = Type.Object({
  token: Type.String(),
  refresh_token: Type.String(),
  expires_in: Type.Integer(),
  refresh_expires_in: Type.Integer(),
  token_type: Type.Literal('Bearer'),
  scope: Type.String(),
});
