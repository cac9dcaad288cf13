// The last `n` UTC days, oldest first, with the API's counts filled in (days without opens are
// absent from its answer).
export interface DayCount {
  day: string;
  real: number;
  proxied: number;
}

export function lastDays(n: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

export function fillDays(days: string[], items: DayCount[]): DayCount[] {
  const byDay = new Map(items.map((i) => [i.day, i]));
  return days.map((day) => byDay.get(day) ?? { day, real: 0, proxied: 0 });
}
