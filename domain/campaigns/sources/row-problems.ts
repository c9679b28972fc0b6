/** How many row numbers an error names; the count covers the rest. */
export const LISTED_ROWS = 10;

/** One kind of problem found in many rows: the first row numbers and how many rows in all. */
export class RowProblems {
  readonly rows: number[] = [];
  count = 0;

  add(rowNumber: number): void {
    this.count += 1;
    if (this.rows.length < LISTED_ROWS) this.rows.push(rowNumber);
  }

  /** `in 13 rows: 2, 5, …, 40 and 3 more`, or `in row 2`. */
  describe(): string {
    const more = this.count - this.rows.length;
    const listed = this.rows.join(', ') + (more > 0 ? ` and ${more} more` : '');
    return this.count === 1 ? `in row ${listed}` : `in ${this.count} rows: ${listed}`;
  }
}
