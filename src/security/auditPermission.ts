// Reading the audit trail (GET /audit, /audit/rate-limited, GraphQL audit) needs the audit permission.
import type { Caller } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';

export function requireAuditPermission(caller: Caller): void {
  if (!caller.permissions.has('audit'))
    throw new AppError('FORBIDDEN', `role ${caller.role} lacks the "audit" permission`, { permission: 'audit', role: caller.role });
}
