// What messages say of a PostgreSQL URL, apart from postgres.ts so that naming the server (main.ts's
// start-up errors) does not load pg: the embedded store never holds pg's code.

/** Where a PostgreSQL URL points, for messages: host, port and database, never the user or password. */
export function postgresDescription(url: string): string {
  const parsed = new URL(url);
  return `PostgreSQL at ${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}
