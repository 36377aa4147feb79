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

export const TokenOut = Type.Object({
  token: Type.String(),
  refresh_token: Type.String(),
  expires_in: Type.Integer(),
  refresh_expires_in: Type.Integer(),
  token_type: Type.Literal('Bearer'),
  scope: Type.String(),
});
