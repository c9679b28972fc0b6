/** A conjunction of SQL conditions with positional parameters, built up one condition at a time. */
export class SqlWhere {
  readonly params: unknown[] = [];
  private readonly conditions: string[] = [];

  /** Adds a condition; each `?` in it becomes the next positional parameter, taking the next value. */
  add(condition: string, ...values: unknown[]): this {
    let next = 0;
    this.conditions.push(
      condition.replace(/\?/g, () => {
        this.params.push(values[next]);
        next += 1;
        return `$${this.params.length}`;
      }),
    );
    return this;
  }

  /** The conditions' parameters followed by `extra`, and the placeholders of `extra` (for LIMIT, OFFSET). */
  withExtra(...extra: unknown[]): { params: unknown[]; placeholders: string[] } {
    return {
      params: [...this.params, ...extra],
      placeholders: extra.map((_value, index) => `$${this.params.length + index + 1}`),
    };
  }

  get sql(): string {
    return this.conditions.length > 0 ? this.conditions.join(' AND ') : 'TRUE';
  }
}
