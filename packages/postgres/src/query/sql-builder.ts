/** Builds SQL text and its positional parameters (`$1`, `$2`, …) side by side. */
export class SqlBuilder {
  readonly params: unknown[] = [];

  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
}
