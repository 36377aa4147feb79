// A WHERE clause built one condition at a time, with numbered parameters
// ($1, $2, …) for node-postgres and PGlite. The list functions of the domain
// (agents, alarms, devices, events, networks, audit, event replay) build their
// filters with it and hand `toSql()` to selectPage.
export class Where {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  /** Rows of one tenant: the first condition of every tenant-scoped list. */
  static tenant(tenantId: string, column = 'tenant_id'): Where {
    return new Where().add(`${column} = ?`, tenantId);
  }

  /** Adds a condition; every `?` in sql stands for value (one parameter). */
  add(sql: string, value: unknown): this {
    const ref = this.param(value);
    this.parts.push(sql.replaceAll('?', ref));
    return this;
  }

  /** Adds a condition written in full (no `?` substitution: jsonb's `?` operator stays as it is). */
  raw(sql: string): this {
    this.parts.push(sql);
    return this;
  }

  /** Registers a parameter and returns its placeholder, for conditions written with raw(). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** The conditions joined with AND (TRUE when there is none) and their parameters. */
  toSql(): { where: string; params: unknown[] } {
    return { where: this.parts.length > 0 ? this.parts.join(' AND ') : 'TRUE', params: this.params };
  }
}
