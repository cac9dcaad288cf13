// The import file as the page reads it: the template offered for download, and each row's email
// (to label the API's per-row results, which number the rows from 1 after the header).
import { parse } from 'csv-parse/browser/esm/sync';

export const IMPORT_COLUMNS = ['email', 'name', 'title', 'department', 'phone', 'mobile', 'role'] as const;

export const TEMPLATE_CSV =
  `${IMPORT_COLUMNS.join(',')}\r\n` +
  'ada@example.com,Ada Lovelace,Engineer,Research,+44 20 7946 0000,,member\r\n' +
  'grace@example.com,Grace Hopper,Director,Engineering,,+1 555 0100,admin\r\n';

/** Emails by row number (1 = the first row after the header); empty when the file cannot be read. */
export function emailsByRow(csv: string): Map<number, string> {
  try {
    const records = parse(csv, {
      columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()),
      skip_empty_lines: true,
      relax_column_count: true,
      bom: true,
    }) as Record<string, string>[];
    return new Map(records.map((r, i) => [i + 1, r.email ?? '']));
  } catch {
    return new Map();
  }
}
