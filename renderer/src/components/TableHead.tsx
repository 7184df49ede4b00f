/** A table's column headings; `num` ones align right, as their figures do. */
export function TableHead({ columns }: { columns: (string | { label: string; num: true })[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          typeof column === 'string' ? (
            <th key={column} scope="col">
              {column}
            </th>
          ) : (
            <th key={column.label} scope="col" className="num">
              {column.label}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
