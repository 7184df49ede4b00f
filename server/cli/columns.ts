/** Lists as a terminal shows them: rows of cells in aligned columns. */

/** A cell that is one amount ("12.50 USDC"): set to the right of its column, so the decimals line up. */
const isAmount = (cell: string) => /^[\d,.]+ USDC$/.test(cell);

/**
 * Rows as lines, each column as wide as its widest cell (amounts to the right), indented, no trailing
 * spaces. A column empty on every line is left out, so an optional cell is given as '' and still
 * keeps the cells after it in their column.
 */
export function aligned(rows: readonly (readonly string[])[], indent = '  '): string {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) => Math.max(0, ...rows.map((row) => row[column]?.length ?? 0)));
  return rows
    .map(
      (row) =>
        `${indent}${row
          .flatMap((cell, column) =>
            widths[column] === 0 ? [] : [isAmount(cell) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)],
          )
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
